"""A schema-free packfile parser for measuring the container on the corpus.

It reads what a packfile says about itself without knowing any class layout: the header,
the section headers, the fixup tables, the export/import tables and the class-name section.
`measure.py` runs the checks of docs/packfile-format.md over every corpus packfile with it.
"""

import os
import struct

MAGIC = bytes([0x57, 0xE0, 0xE0, 0x57, 0x10, 0xC0, 0xC0, 0x10])
REFLECTION = ["hkClass", "hkClassMember", "hkClassEnum", "hkClassEnumItem"]
TABLES = ["local", "global", "virtual", "exports", "imports", "end"]


class Section:
    pass


class Packfile:
    def __init__(self, data, path=""):
        self.data = data
        self.path = path
        if data[:8] != MAGIC:
            raise ValueError("not a packfile")
        self.ptr = data[0x10]
        self.little = data[0x11] == 1
        self.reuse = data[0x12]
        self.empty_base = data[0x13]
        self.e = "<" if self.little else ">"
        (self.user_tag, self.version) = self.u32s(0x08, 2)
        (self.section_count, self.contents_section, self.contents_offset,
         self.names_section, self.root_name_offset) = self.u32s(0x14, 5)
        self.cv_raw = data[0x28:0x38]
        self.contents_version = self.cv_raw.split(b"\0")[0].decode()
        self.flags = self.u32(0x38)
        self.max_predicate, self.predicate_size = struct.unpack(self.e + "hh", data[0x3C:0x40])
        self.sh_first = 0x40 + max(self.predicate_size, 0)
        self.sh_size = 0x40 if self.version >= 11 else 0x30
        self.sections = []
        for i in range(self.section_count):
            h = self.sh_first + i * self.sh_size
            s = Section()
            s.index = i
            s.header_at = h
            s.tag_raw = data[h:h + 20]
            s.tag = s.tag_raw[:19].split(b"\0")[0].decode()
            words = self.u32s(h + 0x14, 7)
            s.start = words[0]
            s.offsets = dict(zip(TABLES, words[1:]))
            s.extra = data[h + 0x30:h + self.sh_size]
            self.sections.append(s)
        for s in self.sections:
            s.local = self.records(s, "local", "global", 2)
            s.global_ = self.records(s, "global", "virtual", 3)
            s.virtual = self.records(s, "virtual", "exports", 3)
            s.exports = self.named(s, "exports", "imports")
            s.imports = self.named(s, "imports", "end")
        self.class_names = self.read_class_names()
        self.name_at = {off: name for (off, sig, name) in self.class_names}

    def u32(self, o):
        return struct.unpack_from(self.e + "I", self.data, o)[0]

    def u32s(self, o, n):
        return struct.unpack_from(self.e + "%dI" % n, self.data, o)

    def abs(self, s, rel):
        return s.start + rel

    def table_bytes(self, s, a, b):
        return self.data[s.start + s.offsets[a]:s.start + s.offsets[b]]

    def records(self, s, a, b, n):
        """Records up to the first whose first word is 0xFFFFFFFF; also keeps the tail."""
        raw = self.table_bytes(s, a, b)
        out = []
        o = 0
        while o + 4 <= len(raw):
            first = struct.unpack_from(self.e + "I", raw, o)[0]
            if first == 0xFFFFFFFF:
                break
            out.append(struct.unpack_from(self.e + "%dI" % n, raw, o))
            o += 4 * n
        s.__dict__.setdefault("tails", {})[a] = raw[o:]
        return out

    def named(self, s, a, b):
        raw = self.table_bytes(s, a, b)
        out = []
        o = 0
        while o + 4 <= len(raw):
            off = struct.unpack_from(self.e + "I", raw, o)[0]
            if off == 0xFFFFFFFF:
                break
            end = raw.index(b"\0", o + 4)
            out.append((off, raw[o + 4:end].decode("latin-1")))
            o = (end + 1 + 3) // 4 * 4
        return out

    def data_bytes(self, s):
        return self.data[s.start:s.start + s.offsets["local"]]

    def read_class_names(self):
        s = self.sections[self.names_section]
        raw = self.data_bytes(s)
        out = []
        o = 0
        while o + 5 <= len(raw):
            sig = struct.unpack_from(self.e + "I", raw, o)[0]
            if sig == 0xFFFFFFFF:
                break
            assert raw[o + 4] == 0x09, (self.path, o)
            end = raw.index(b"\0", o + 5)
            out.append((o + 5, sig, raw[o + 5:end].decode()))
            o = end + 1
        self.names_end = o
        self.names_tail = raw[o:]
        return out

    def objects(self):
        """(section, offset, class name) of every virtual fixup, in table order."""
        out = []
        for s in self.sections:
            for (obj, sec, name) in s.virtual:
                out.append((s.index, obj, self.name_at.get(name)))
        return out


def corpus_root():
    return os.environ.get("HK_CORPUS", os.path.join(os.path.dirname(__file__), "../../../../shared/corpus"))


def corpus_packfiles(root=None):
    """(folder, file, path) of every packfile in MANIFEST.tsv order."""
    root = root or corpus_root()
    out = []
    with open(os.path.join(root, "MANIFEST.tsv")) as f:
        next(f)
        for line in f:
            cols = line.rstrip("\n").split("\t")
            path = os.path.join(root, cols[0], cols[1])
            with open(path, "rb") as g:
                head = g.read(8)
            if head == MAGIC:
                out.append((cols[0], cols[1], path))
    return out
