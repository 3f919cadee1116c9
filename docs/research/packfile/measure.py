"""Measures the container rules of docs/packfile-format.md on every corpus packfile.

    python3 docs/research/packfile/measure.py        (HK_CORPUS names the corpus folder)

Every line it prints is `rule: passing/total` (or a distribution); the document quotes them.
Nothing here knows a class layout: rules that need one (array headers, padding inside
objects, pointer slots) are checked by hk's strict reader, see the document.
"""

import collections
import struct
import sys

import pack

C = collections.Counter


def align(v, a):
    return (v + a - 1) // a * a


def group(folder):
    return folder.split("/")[-1]


class Tally:
    def __init__(self):
        self.ok = C()
        self.n = C()
        self.bad = collections.defaultdict(list)

    def check(self, rule, cond, where=""):
        self.n[rule] += 1
        if cond:
            self.ok[rule] += 1
        elif len(self.bad[rule]) < 3:
            self.bad[rule].append(where)

    def report(self):
        for rule in self.n:
            line = "%s: %d/%d" % (rule, self.ok[rule], self.n[rule])
            if self.bad[rule]:
                line += "   e.g. " + "; ".join(self.bad[rule])
            print(line)


def walk_order(p):
    """Objects of the contents section in the order a depth-first walk from the root meets
    them, taking each object's global fixups in table order (the writer's walk order)."""
    data = p.sections[p.contents_section]
    objs = sorted(o for (o, _, _) in data.virtual)
    starts = set(objs)
    # The extent of an object: up to the next object (its owned data lies in between).
    nxt = {o: (objs[i + 1] if i + 1 < len(objs) else data.offsets["local"]) for i, o in enumerate(objs)}
    by_owner = collections.defaultdict(list)
    import bisect
    for (src, sec, dst) in data.global_:
        i = bisect.bisect_right(objs, src) - 1
        if i >= 0 and sec == p.contents_section and dst in starts:
            by_owner[objs[i]].append(dst)
    seen = set()
    order = []
    stack = [p.contents_offset]
    while stack:
        o = stack.pop()
        if o in seen:
            continue
        seen.add(o)
        order.append(o)
        stack.extend(reversed(by_owner[o]))
    return order, objs


def main():
    t = Tally()
    dist = collections.defaultdict(C)
    files = pack.corpus_packfiles()
    sigs = collections.defaultdict(lambda: collections.defaultdict(set))
    totals = C()
    for folder, name, path in files:
        data = open(path, "rb").read()
        p = pack.Packfile(data, path)
        f = "%s/%s" % (folder, name)
        g = group(folder)
        gen = p.contents_version
        totals["files"] += 1
        # Header.
        t.check("magic 57E0E057 10C0C010", data[:8] == pack.MAGIC, f)
        dist["userTag"][p.user_tag] += 1
        dist["file version / contents version"][(p.version, gen)] += 1
        dist["layout bytes (ptr, little, reuse, emptyBase)"][(p.ptr, int(p.little), p.reuse, p.empty_base)] += 1
        dist["sections, contents section, class-name section"][(p.section_count, p.contents_section, p.names_section)] += 1
        dist["flags word by contents version"][(gen, hex(p.flags))] += 1
        dist["maxPredicate, predicate size by contents version"][(gen, p.max_predicate, p.predicate_size)] += 1
        if p.predicate_size > 0:
            dist["predicate block bytes"][data[0x40:0x40 + p.predicate_size].hex()] += 1
        cv = p.cv_raw
        n = cv.index(b"\0")
        t.check("contents version: text, NUL, then 0xFF to 0x38", all(b == 0xFF for b in cv[n + 1:]), f)
        t.check("section headers start at 0x40 + predicate size", p.sh_first == 0x40 + max(p.predicate_size, 0), f)
        dist["section header size by file version"][(p.version, p.sh_size)] += 1
        # Section headers.
        end_of_headers = p.sh_first + p.section_count * p.sh_size
        prev_end = end_of_headers
        for s in p.sections:
            raw = s.tag_raw
            k = raw.index(b"\0")
            t.check("section tag: NUL-filled to 19 bytes, then 0xFF", all(b == 0 for b in raw[k:19]) and raw[19] == 0xFF, f)
            if p.sh_size == 0x40:
                t.check("v11 section header: 16 bytes of 0xFF after the seven words", s.extra == b"\xff" * 16, f)
            w = [s.offsets[x] for x in pack.TABLES]
            t.check("section words ascending: data <= local <= global <= virtual <= exports <= imports <= end", w == sorted(w), f)
            t.check("section starts on a 16-byte boundary", s.start % 16 == 0, f)
            t.check("section starts where the previous one ends (after 0xFF padding to 16)",
                    s.start == align(prev_end, 16) and all(b == 0xFF for b in data[prev_end:s.start]), f)
            for a in ["local", "global", "virtual", "exports", "imports", "end"]:
                t.check("every table offset is a multiple of 16", s.offsets[a] % 16 == 0, "%s %s" % (f, s.tag))
            prev_end = s.start + s.offsets["end"]
            t.check("export and import tables empty (exports == imports == end)",
                    s.offsets["exports"] == s.offsets["imports"] == s.offsets["end"], f)
            # Fixup tables: records, then 0xFF to the table end.
            for a, recs, size in [("local", s.local, 8), ("global", s.global_, 12), ("virtual", s.virtual, 12)]:
                tail = s.tails[a]
                t.check("fixup table: records, then only 0xFF bytes", all(b == 0xFF for b in tail), "%s %s" % (f, a))
                if recs and not tail:
                    dist["non-empty fixup tables ending on a 16-byte boundary (no terminator)"][a] += 1
                used = len(recs) * size
                if a == "global" and len(tail) >= 16:
                    dist["global table: surplus all-0xFF bytes past the padding (erased records)"][(g, len(tail))] += 1
                else:
                    t.check("fixup table padded to exactly the next 16-byte boundary", s.offsets[{"local": "global", "global": "virtual", "virtual": "exports"}[a]] - s.offsets[a] == align(used, 16), "%s %s %s" % (f, s.tag, a))
                totals[a] += len(recs)
            if s.index != p.contents_section:
                dist["fixups outside the contents section (section, local, global, virtual)"][(g, s.tag, len(s.local), len(s.global_), len(s.virtual))] += 1
        t.check("file ends where the last section ends", prev_end == len(data), f)
        # Fixup facts.
        ds = p.sections[p.contents_section]
        for s in p.sections:
            for (src, dst) in s.local:
                t.check("fixup source 4-aligned", src % 4 == 0, f)
                t.check("fixup source aligned to the pointer size", src % p.ptr == 0, f)
            for (src, sec, dst) in s.global_:
                t.check("fixup source 4-aligned", src % 4 == 0, f)
                t.check("fixup source aligned to the pointer size", src % p.ptr == 0, f)
            srcs = [r[0] for r in s.local]
            if srcs:
                t.check("local fixups in ascending source order", srcs == sorted(srcs), f)
                dsts = [r[1] for r in s.local]
                t.check("local fixups in ascending destination order", dsts == sorted(dsts), f)
            gsrc = [r[0] for r in s.global_]
            if gsrc:
                t.check("global fixups in ascending source order", gsrc == sorted(gsrc), f)
            objs = [r[0] for r in s.virtual]
            if objs:
                t.check("virtual fixups in ascending object order", objs == sorted(objs), f)
            for (o, sec, nm) in s.virtual:
                t.check("virtual fixup names the class-name section", sec == p.names_section, f)
                t.check("virtual fixup names the start of a class-name entry", nm in p.name_at, f)
                t.check("object 16-aligned", o % 16 == 0, f)
                totals["objects"] += 1
        objset = {(s.index, o) for s in p.sections for (o, _, _) in s.virtual}
        for s in p.sections:
            for (src, sec, dst) in s.global_:
                t.check("global fixup names an object (not inside one)", (sec, dst) in objset, f)
                t.check("global fixup target is 16-aligned", dst % 16 == 0, f)
            for (src, dst) in s.local:
                t.check("local fixup names no object", (s.index, dst) not in objset, f)
        # Root.
        root_cls = [p.name_at.get(nm) for (o, sec, nm) in ds.virtual if o == p.contents_offset]
        t.check("contents offset names an object", len(root_cls) == 1, f)
        t.check("root class-name offset names the root object's class",
                root_cls and p.name_at.get(p.root_name_offset) == root_cls[0], f)
        dist["root class"][root_cls[0] if root_cls else None] += 1
        # Where the objects live.
        for s in p.sections:
            if s.virtual:
                dist["sections holding objects (section: files)"][s.tag] += 1
                dist["object classes per section"][(s.tag, "metadata" if all(p.name_at[v[2]].startswith("hkClass") for v in s.virtual) else "data")] += 1
        # Class names.
        names = [nm for (_, _, nm) in p.class_names]
        t.check("class names start hkClass, hkClassMember, hkClassEnum, hkClassEnumItem", names[:4] == pack.REFLECTION, f)
        tail = p.names_tail
        sec = p.sections[p.names_section]
        t.check("class-name entries followed by 0xFF to the end of the section data", all(b == 0xFF for b in tail), f)
        t.check("class-name section data padded to exactly the next 16 boundary", sec.offsets["local"] == align(p.names_end, 16), f)
        dist["class-name 0xFF padding length"][len(tail)] += 1
        t.check("class-name section has no fixups", not (sec.local or sec.global_ or sec.virtual), f)
        used = []
        for s in p.sections:
            for (o, _, nm) in sorted(s.virtual):
                c = p.name_at[nm]
                if c not in used:
                    used.append(c)
        # Objects in the contents section first (the writer walks it first), then others.
        order_ds = []
        for (o, _, nm) in sorted(ds.virtual):
            c = p.name_at[nm]
            if c not in order_ds:
                order_ds.append(c)
        expect = list(pack.REFLECTION)
        for c in used:
            if c not in expect:
                expect.append(c)
        ok = names == expect
        t.check("class names = the 4 reflection classes, then each class in the order of its first object", ok, f)
        if not ok:
            extra = [c for c in names if c not in used and c not in pack.REFLECTION]
            dist["class names not matching that order (folder, listed without an object, listed)"][(g, len(extra), len(names))] += 1
        for (_, sig, nm) in p.class_names:
            sigs[gen][nm].add(sig)
        # Object order: depth-first from the root in global-fixup order.
        order, objs = walk_order(p)
        walk_ok = order == objs
        t.check("contents-section objects in depth-first walk order from the root (children in global-fixup order)", walk_ok, f)
        rest = [o for o in objs if o not in set(order)]
        if rest:
            dist["contents-section objects not reached from the root"][g] += len(rest)
        # Strings and owned data: local destinations' alignment.
        for s in p.sections:
            for (src, dst) in s.local:
                dist["local fixup destination mod 16 (by contents version)"][(gen, dst % 16 == 0)] += 1
    t.report()
    print()
    for k, c in dist.items():
        print(k + ":")
        for v, n in sorted(c.items(), key=lambda kv: str(kv[0])):
            print("   ", v, n)
    print()
    inconsistent = [(gen, nm, s) for gen in sigs for nm, s in sigs[gen].items() if len(s) > 1]
    print("class names with one signature per contents version: %d/%d" % (
        sum(len(v) for v in sigs.values()) - len(inconsistent), sum(len(v) for v in sigs.values())))
    for x in inconsistent[:5]:
        print("   differs:", x)
    for gen in sorted(sigs):
        r = sigs[gen]
        print("   %s: hkClass %s hkClassMember %s hkClassEnum %s hkClassEnumItem %s" % (
            gen, *("/".join("%08X" % v for v in sorted(r[c])) for c in pack.REFLECTION)))
    print()
    for k, v in totals.items():
        print("total %s: %d" % (k, v))


if __name__ == "__main__":
    sys.exit(main())
