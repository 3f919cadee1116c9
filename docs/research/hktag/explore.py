#!/usr/bin/env python3
"""Walk an old binary tagfile (magic 1E0DB0CA CEFA11D0) and print its tags.

Exploration aid for docs/binary-tagfile-format.md; not used by the build.
Usage: explore.py FILE [-v]
"""
import struct, sys

VOID, BYTE, INT, REAL, VEC4, VEC8, VEC12, VEC16, OBJECT, STRUCT, CSTRING = range(11)
ARRAY, TUPLE = 0x10, 0x20
NAMES = ["void", "byte", "int", "real", "vec4", "vec8", "vec12", "vec16", "object", "struct", "cstring"]


class R:
    def __init__(s, b):
        s.b, s.p = b, 8
        s.strings = ["", None]
        s.classes = [None]
        s.version = None
        s.objects = 0
        s.stats = {}

    def stat(s, k):
        s.stats[k] = s.stats.get(k, 0) + 1

    def u8(s):
        v = s.b[s.p]; s.p += 1; return v

    def raw(s, n):
        v = s.b[s.p:s.p + n]
        if len(v) != n: raise EOFError
        s.p += n; return v

    def int(s):
        s.stat("varints")
        start = s.p
        b = s.u8(); u = (b & 0x7f) >> 1; neg = b & 1; sh = 6
        while b & 0x80:
            b = s.u8(); u |= (b & 0x7f) << sh; sh += 7
        v = -u if neg else u
        # minimality check
        n = s.p - start
        if n > 1 and s.b[s.p - 1] == 0: s.stat("nonminimal varint")
        if neg and u == 0: s.stat("negative zero")
        return v

    def string(s):
        n = s.int()
        if n > 0:
            s.stat("strings written out")
            v = s.raw(n).decode("latin1")
            if v in s.strings: s.stat("inline string already in table")
            s.strings.append(v); return v
        s.stat("string ref" if n < -1 else ("empty string" if n == 0 else "null string"))
        return s.strings[-n]

    def members(s, ci):
        out = []
        while ci:
            c = s.classes[ci]; out = c["members"] + out; ci = c["parent"]
        return out

    def klass(s):
        name = s.string(); ver = s.int(); par = s.int(); n = s.int()
        ms = []
        for _ in range(n):
            mn = s.string(); t = s.int(); tup = s.int() if t & TUPLE else 0
            cn = s.string() if (t & 0xf) in (STRUCT, OBJECT) else None
            if (t & 0xf) in (STRUCT, OBJECT) and cn is None: s.stat("null class name type %#x" % t)
            ms.append(dict(name=mn, type=t, tuple=tup, cls=cn))
            s.stat("type %#x" % t)
        s.classes.append(dict(name=name, version=ver, parent=par, members=ms))
        return name

    def find(s, name):
        for i, c in enumerate(s.classes):
            if c and c["name"] == name: return i
        raise KeyError(name)

    def bits(s, n):
        nb = (n + 7) // 8
        raw = s.raw(nb)
        out = [(raw[i // 8] >> (i % 8)) & 1 for i in range(n)]
        pad = [(raw[i // 8] >> (i % 8)) & 1 for i in range(n, nb * 8)]
        if any(pad): s.stat("bitfield pad bits set")
        return out

    def obj_body(s, ci):
        ms = s.members(ci)
        present = s.bits(len(ms))
        s.stat("bitfields")
        for m, p in zip(ms, present):
            t = m["type"]
            always = t != VOID and (t & TUPLE or (not t & ARRAY and ((t & 0xf) in (VEC4, VEC8, VEC12, VEC16, STRUCT))))
            if p:
                s.stat("members present")
                if m["type"] == VOID: s.stat("void member present")
                start = s.p
                s.value(m)
                raw = s.b[start:s.p]
                # a present member holding its zero value: 0 int/byte, 0.0 real, null ref/string, empty array
                zero = ((t & ARRAY and raw[:1] == b"\x00") or (t in (BYTE, INT, OBJECT) and raw == b"\x00")
                        or (t == CSTRING and raw == b"\x03") or (t == REAL and raw in (b"\0\0\0\0", b"\0\0\0\x80")))
                if not always and zero:
                    s.stat("present with a zero value")
            else:
                s.stat("members left out")
                if always: s.stat("always-written member left out")

    def value(s, m):
        t = m["type"]
        if t & TUPLE and (t & 0xf) not in (VEC4, VEC8, VEC12, VEC16) or (t & TUPLE and t & ARRAY):
            s.stat("tuple type %#x" % t)
            s.items(m, t & ~TUPLE, m["tuple"])
            return
        if t & TUPLE:
            s.stat("vec tuple %#x x%d" % (t, m["tuple"]))
            s.items(m, t & ~TUPLE, m["tuple"]); return
        if t & ARRAY:
            n = s.int()
            s.stat("array")
            s.items(m, t & ~ARRAY, n)
            return
        s.scalar(m, t)

    def scalar(s, m, t):
        if t == BYTE: s.u8()
        elif t == INT: s.int()
        elif t == REAL: s.raw(4)
        elif t in (VEC4, VEC8, VEC12, VEC16): s.raw(4 * [4, 8, 12, 16][t - VEC4])
        elif t == OBJECT: s.int()
        elif t == STRUCT: s.obj_body(s.find(m["cls"]))
        elif t == CSTRING: s.string()
        else: raise ValueError("scalar type %d at %d" % (t, s.p))

    def items(s, m, t, n):
        if t == BYTE: s.raw(n)
        elif t == INT:
            hint = s.int(); s.stat("int array hint %d" % hint)
            for _ in range(n): s.int()
        elif t == REAL: s.raw(4 * n)
        elif t == VEC4:
            k = s.int(); s.stat("vec4 array width %d" % k)
            raw = s.raw(4 * k * n)
            if k == 4 and all(raw[16 * i + 12:16 * i + 16] == b"\0\0\0\0" for i in range(n)):
                s.stat("vec4 width 4 with every w +0.0")
        elif t in (VEC8, VEC12, VEC16): s.raw(4 * [4, 8, 12, 16][t - VEC4] * n)
        elif t == OBJECT:
            for _ in range(n): s.int()
        elif t == CSTRING:
            for _ in range(n): s.string()
        elif t == STRUCT:
            ms = s.members(s.find(m["cls"]))
            present = s.bits(len(ms))
            for mm, p in zip(ms, present):
                if not p: continue
                tt = mm["type"]
                if tt & TUPLE and not (tt & 0xf) in (VEC4, VEC8, VEC12, VEC16):
                    s.stat("struct-array tuple member")
                    for _ in range(n): s.items(mm, tt & ~TUPLE, mm["tuple"])
                elif tt & ARRAY:
                    s.stat("struct-array array member")
                    for _ in range(n):
                        k = s.int(); s.items(mm, tt & ~ARRAY, k)
                else:
                    s.items(mm, tt & ~TUPLE if tt & TUPLE else tt, n) if not (tt & TUPLE) else s.items(mm, tt & ~TUPLE, n) if False else s.vecitems(mm, tt, n)
        else: raise ValueError("items type %#x at %d" % (t, s.p))

    def vecitems(s, mm, tt, n):
        # vec-typed tuple (e.g. vec4 with tuple count) inside a struct array
        s.stat("struct-array vec tuple member")
        for _ in range(n): s.items(mm, tt & ~TUPLE, mm["tuple"])

    def run(s, verbose):
        while True:
            at = s.p
            tag = s.int()
            if tag == 1:
                s.version = s.int()
                extra = ""
                if s.version >= 4: extra = repr(s.string())
                if s.version >= 5:
                    a, nv = struct.unpack("<HH", s.raw(4))
                    vs = struct.unpack("<%dH" % nv, s.raw(2 * nv))
                    extra += " predicates max=%d verified=%r" % (a, vs)
                print("%6d FILE_INFO version %d %s" % (at, s.version, extra))
            elif tag == 2:
                if s.objects: s.stat("class defined after an object")
                n = s.klass()
                c = s.classes[-1]
                if verbose:
                    print("%6d METADATA #%d %s v%d parent %d: %s" % (at, len(s.classes) - 1, n, c["version"], c["parent"],
                        ", ".join("%s:%#x%s%s" % (m["name"], m["type"], "[%d]" % m["tuple"] if m["tuple"] else "", "<%s>" % m["cls"] if m["cls"] else "") for m in c["members"])))
            elif tag == 4:
                ci = s.int(); s.objects += 1
                if verbose: print("%6d OBJECT #%d %s" % (at, s.objects, s.classes[ci]["name"]))
                s.obj_body(ci)
            elif tag == 7:
                print("%6d FILE_END; %d bytes left; %d classes, %d objects, %d strings" % (at, len(s.b) - s.p, len(s.classes) - 1, s.objects, len(s.strings) - 2))
                break
            elif tag == 0:
                s.stat("TAG_NONE at top level")
                if verbose: print("%6d NONE" % at)
            else:
                raise ValueError("tag %d at %d" % (tag, at))
        for k in sorted(s.stats): print("   %-40s %d" % (k, s.stats[k]))


if __name__ == "__main__":
    if sys.argv[1] == "--stats":
        # Summed over every file given: explore.py --stats FILE...
        total = {}
        for f in sys.argv[2:]:
            r = R(open(f, "rb").read())
            import io, contextlib
            with contextlib.redirect_stdout(io.StringIO()):
                r.run(False)
            r.stats["files"] = 1
            r.stats["classes"] = len(r.classes) - 1
            r.stats["objects"] = r.objects
            r.stats["strings remembered"] = len(r.strings) - 2
            r.stats["trailing bytes"] = len(r.b) - r.p
            for k, v in r.stats.items(): total[k] = total.get(k, 0) + v
        for k in sorted(total): print("%-44s %d" % (k, total[k]))
    else:
        b = open(sys.argv[1], "rb").read()
        assert b[:8] == bytes.fromhex("1e0db0cacefa11d0")
        R(b).run("-v" in sys.argv)
