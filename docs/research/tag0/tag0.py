"""TAG0 tagfile parser (research scratch)."""
import struct, glob, os, sys
from collections import Counter, defaultdict

CORPUS = os.environ.get('HK_CORPUS', os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../../shared/corpus'))
FILES = sorted(glob.glob(os.path.join(CORPUS, 'games/dark-souls-remastered/*.hkx'))) + \
        sorted(glob.glob(os.path.join(CORPUS, 'games/totk/*.bphcl')))

VARINT_STATS = Counter()   # (nbytes, prefix) -> count
VARINT_EXAMPLES = {}

def read_varint(b, p):
    b0 = b[p]
    if b0 & 0x80 == 0:
        n, v = 1, b0
    elif b0 & 0xC0 == 0x80:
        n, v = 2, ((b0 << 8) | b[p+1]) & 0x3FFF
    elif b0 & 0xE0 == 0xC0:
        n, v = 3, ((b0 << 16) | (b[p+1] << 8) | b[p+2]) & 0x1FFFFF
    elif b0 & 0xF8 == 0xE0:
        n, v = 4, int.from_bytes(b[p:p+4], 'big') & 0x7FFFFFF
    elif b0 & 0xF8 == 0xE8:
        n, v = 5, int.from_bytes(b[p:p+5], 'big') & 0x7FFFFFFFF
    elif b0 & 0xF8 == 0xF0:
        n, v = 8, int.from_bytes(b[p:p+8], 'big') & 0x7FFFFFFFFFFFFFF
    elif b0 == 0xF8:
        n, v = 9, int.from_bytes(b[p+1:p+9], 'big')
    else:
        raise ValueError('bad varint prefix %02x at %x' % (b0, p))
    VARINT_STATS[n] += 1
    key = (n, v < {1:0, 2:0x80, 3:0x4000, 4:0x200000, 5:0x8000000, 8:0x800000000, 9:1<<59}[n])
    VARINT_EXAMPLES.setdefault(key, (b[p:p+n].hex(), v))
    return v, p + n, n

def varint_bytes(v):
    if v < 0x80: return bytes([v])
    if v < 0x4000: return (0x8000 | v).to_bytes(2, 'big')
    if v < 0x200000: return (0xC00000 | v).to_bytes(3, 'big')
    if v < 0x8000000: return (0xE0000000 | v).to_bytes(4, 'big')
    if v < 0x800000000: return (0xE800000000 | v).to_bytes(5, 'big')
    if v < (1 << 59): return (0xF000000000000000 | v).to_bytes(8, 'big')
    return b'\xf8' + v.to_bytes(8, 'big')

class Section:
    def __init__(self, tag, flag, off, size, body=None, children=None):
        self.tag, self.flag, self.off, self.size = tag, flag, off, size
        self.body, self.children = body, children
    def find(self, *tags):
        for c in self.children:
            if c.tag in tags: return c
        return None

def parse_sections(b, off, end):
    out = []
    while off < end:
        h = struct.unpack('>I', b[off:off+4])[0]
        tag = b[off+4:off+8].decode('latin1')
        flag, size = h >> 30, h & 0x3FFFFFFF
        if flag == 1:
            out.append(Section(tag, flag, off, size, body=b[off+8:off+size]))
        elif flag == 0:
            out.append(Section(tag, flag, off, size, children=parse_sections(b, off+8, off+size)))
        else:
            raise ValueError('flag %d' % flag)
        off += size
    assert off == end, (off, end)
    return out

def split_strings(body):
    # strings NUL-terminated; section padded to 4 with extra bytes
    parts = body.split(b'\0')
    return parts

class Type:
    def __init__(self, idx):
        self.idx = idx; self.name = None; self.params = []
        self.parent = 0; self.opt = 0; self.format = None; self.subtype = None
        self.version = None; self.size = None; self.align = None; self.flags = None
        self.members = None; self.interfaces = None; self.attr = None
        self.hash = None
        self.body_order = None
    def __repr__(self):
        return f'T{self.idx}:{self.fullname()}'
    def fullname(self, types=None):
        return self.name + ('<%s>' % ','.join(f'{n}={v}' for n, v in self.params) if self.params else '')

FMT_NAMES = {0:'void',1:'opaque',2:'bool',3:'string',4:'int',5:'float',6:'pointer',7:'record',8:'array'}

class TagFile:
    pass

def parse_tagfile(b, base):
    tf = TagFile()
    tf.base = base
    h = struct.unpack('>I', b[base:base+4])[0]
    top = parse_sections(b, base, base + (h & 0x3FFFFFFF))[0]
    tf.top = top
    tf.sdkv = top.find('SDKV').body
    data = top.find('DATA'); tf.data = data.body; tf.data_off = data.off + 8
    T = top.find('TYPE')
    tf.type_tags = [c.tag for c in T.children]
    tptr = T.find('TPTR').body
    tstr = T.find('TSTR', 'TST1').body
    tnam = T.find('TNAM', 'TNA1').body
    fstr = T.find('FSTR', 'FST1').body
    tbod = T.find('TBOD', 'TBDY').body
    thsh = T.find('THSH').body
    tpad = T.find('TPAD').body
    tf.tptr, tf.tpad = tptr, tpad
    tf.tstr_raw, tf.fstr_raw = tstr, fstr
    tf.tstrings = tstr.split(b'\0')
    tf.fstrings = fstr.split(b'\0')
    # TNAM
    p = 0
    n, p, _ = read_varint(tnam, p)
    tf.ntypes = n
    types = [None] + [Type(i) for i in range(1, n)]
    for i in range(1, n):
        t = types[i]
        ni, p, _ = read_varint(tnam, p); t.name_idx = ni; t.name = tf.tstrings[ni].decode()
        np_, p, _ = read_varint(tnam, p)
        for _ in range(np_):
            pi, p, _ = read_varint(tnam, p); pv, p, _ = read_varint(tnam, p)
            t.params.append((tf.tstrings[pi].decode(), pv))
    tf.tnam_end = p; tf.tnam_tail = tnam[p:]
    tf.types = types
    # TBOD
    p = 0; order = []
    tf.tbod_zero = 0
    while p < len(tbod):
        ti, p, _ = read_varint(tbod, p)
        if ti == 0:
            tf.tbod_zero += 1
            # padding?
            continue
        t = types[ti]; order.append(ti)
        t.parent, p, _ = read_varint(tbod, p)
        t.opt, p, _ = read_varint(tbod, p)
        if t.opt & 1: t.format, p, _ = read_varint(tbod, p)
        if t.opt & 2: t.subtype, p, _ = read_varint(tbod, p)
        if t.opt & 4: t.version, p, _ = read_varint(tbod, p)
        if t.opt & 8:
            t.size, p, _ = read_varint(tbod, p); t.align, p, _ = read_varint(tbod, p)
        if t.opt & 16: t.flags, p, _ = read_varint(tbod, p)
        if t.opt & 32:
            nm, p, _ = read_varint(tbod, p); t.members = []
            for _ in range(nm):
                a, p, _ = read_varint(tbod, p); fl, p, _ = read_varint(tbod, p)
                x = None
                if fl & 0x80: x, p, _ = read_varint(tbod, p)
                o, p, _ = read_varint(tbod, p); mt, p, _ = read_varint(tbod, p)
                t.members.append((tf.fstrings[a].decode(), fl, o, mt, a, x))
        if t.opt & 64:
            ni, p, _ = read_varint(tbod, p); t.interfaces = []
            for _ in range(ni):
                a, p, _ = read_varint(tbod, p); o, p, _ = read_varint(tbod, p)
                t.interfaces.append((a, o))
        if t.opt & 128:
            t.attr, p, _ = read_varint(tbod, p)
        if t.opt & ~0xFF:
            raise ValueError('unknown opt bits %x' % t.opt)
    tf.tbod_order = order
    # THSH
    p = 0
    nh, p, _ = read_varint(thsh, p); tf.hash_order = []
    for _ in range(nh):
        ti, p, _ = read_varint(thsh, p)
        types[ti].hash = struct.unpack('<I', thsh[p:p+4])[0]; p += 4
        tf.hash_order.append(ti)
    tf.thsh_tail = thsh[p:]
    # INDX
    I = top.find('INDX')
    item = I.find('ITEM').body; ptch = I.find('PTCH').body
    tf.items = [struct.unpack('<III', item[i:i+12]) for i in range(0, len(item), 12)]
    assert len(item) % 12 == 0
    tf.patches = []
    p = 0
    while p < len(ptch):
        ti, cnt = struct.unpack('<II', ptch[p:p+8]); p += 8
        offs = list(struct.unpack('<%dI' % cnt, ptch[p:p+4*cnt])); p += 4*cnt
        tf.patches.append((ti, offs))
    tf.top_sections = [c.tag for c in top.children]
    tf.end = base + top.size
    return tf

def load(path):
    b = open(path, 'rb').read()
    base = 0x30 if b[:5] == b'Phive' else 0
    return b, parse_tagfile(b, base)

if __name__ == '__main__':
    for f in FILES:
        b, tf = load(f)
        print(os.path.basename(f), tf.sdkv, tf.type_tags, 'ntypes', tf.ntypes, 'items', len(tf.items),
              'tnam tail', tf.tnam_tail.hex(), 'tbod zeros', tf.tbod_zero, 'thsh tail', tf.thsh_tail.hex(),
              'tptr', len(tf.tptr), set(tf.tptr), 'tpad', tf.tpad.hex())
    print(VARINT_STATS)
    for k, v in sorted(VARINT_EXAMPLES.items()): print(k, v)
