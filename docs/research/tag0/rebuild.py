"""Parse TAG0 files into an object graph + type graph, then regenerate every section from the graph
and compare byte for byte.  Nothing from the original byte layout (offsets, indices, orders) is kept."""
import sys, struct, os, random
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tag0 import load, FILES, varint_bytes, read_varint
from collections import deque, Counter, defaultdict

# ---------------------------------------------------------------- graph model
class TypeNode:
    __slots__ = ('name', 'params', 'parent', 'opt', 'format', 'subtype', 'version', 'size', 'align',
                 'flags', 'members', 'interfaces', 'attr', 'hash', 'has_body')
    def __repr__(self): return 'Type(%s)' % self.name

class Member:
    __slots__ = ('name', 'flags', 'extra', 'offset', 'type')

class ObjNode:      # pointer target (ITEM flag 0x10) or array block (0x20)
    __slots__ = ('type', 'count', 'raw', 'slots', 'is_obj')
class StrNode:
    __slots__ = ('s', '_idx')

def to_graph(tf):
    """Reader: bytes -> graph.  Type table and DATA are decoded; all indices/offsets are resolved away."""
    T = tf.types
    nodes = [None]
    for i in range(1, tf.ntypes):
        n = TypeNode(); nodes.append(n)
    for i in range(1, tf.ntypes):
        t = T[i]; n = nodes[i]
        n.name = t.name
        n.params = [(pn, nodes[pv] if pn.startswith('t') else pv) for pn, pv in t.params]
        n.parent = nodes[t.parent] if t.parent else None
        n.opt = t.opt; n.format = t.format; n.subtype = nodes[t.subtype] if t.subtype else None
        n.version = t.version; n.size = t.size; n.align = t.align; n.flags = t.flags
        n.members = None
        if t.members is not None:
            n.members = []
            for (mn, fl, off, mt, _, x) in t.members:
                m = Member(); m.name, m.flags, m.extra, m.offset, m.type = mn, fl, x, off, nodes[mt]
                n.members.append(m)
        n.interfaces = [(nodes[a], o) for a, o in t.interfaces] if t.interfaces is not None else None
        n.attr = t.attr; n.hash = t.hash
        n.has_body = i in set(tf.tbod_order)
    # data graph
    items = tf.items
    gnodes = [None] * len(items)
    for ii in range(1, len(items)):
        tag, off, cnt = items[ii]; tn = nodes[tag & 0xFFFFFF]
        if tn.name == 'char' and tag >> 24 == 0x20:
            s = StrNode(); s.s = tf.data[off:off + cnt - 1]; assert tf.data[off + cnt - 1] == 0
            gnodes[ii] = s
        else:
            o = ObjNode(); o.type = tn; o.count = cnt; o.is_obj = (tag >> 24 == 0x10)
            if o.is_obj: assert cnt == 1
            gnodes[ii] = o
    for ii in range(1, len(items)):
        g = gnodes[ii]
        if isinstance(g, StrNode): continue
        tag, off, cnt = items[ii]
        es = esize(g.type)
        raw = bytearray(tf.data[off:off + es * cnt]); slots = {}
        for (rel, kind, ftype) in scan_slots(g.type, cnt):
            v = struct.unpack('<Q', raw[rel:rel + 8])[0]
            if v:
                tgt = gnodes[v]
                if isinstance(tgt, StrNode):      # every string slot gets its own node: sharing is the writer's job
                    c = StrNode(); c.s = tgt.s; tgt = c
                slots[rel] = (ftype, tgt)
                raw[rel:rel + 8] = bytes(8)
        g.raw = bytes(raw); g.slots = slots
    return nodes[1:], gnodes[1]

# ------------------------------------------------------------- type helpers
def eff(t, attr):
    while t is not None:
        v = getattr(t, attr)
        if v is not None: return v
        t = t.parent
    return None
def esize(t): return eff(t, 'size')
def ealign(t): return eff(t, 'align') & 0xFF
def all_members(t):
    chain = []
    while t is not None: chain.append(t); t = t.parent
    out = []
    for c in reversed(chain): out += c.members or []
    return out
def kind(t):
    f = eff(t, 'format'); k = f & 0xFF
    if k & 0x7F == 3: return 3
    return k

def scan_slots(t, count):
    """slot positions of `count` consecutive elements of type t, member-major order:
       yields (relative offset, kind, declared field type)"""
    es = esize(t)
    def rec(t, offs):
        k = kind(t)
        if k in (3, 6, 8):
            for o in offs: yield (o, k, t)
        elif k == 7:
            for m in all_members(t):
                yield from rec(m.type, [o + m.offset for o in offs])
        elif k == 0x28:
            f = eff(t, 'format'); n = f >> 8; sub = eff(t, 'subtype'); s = esize(sub)
            for i in range(n): yield from rec(sub, [o + i * s for o in offs])
    yield from rec(t, [e * es for e in range(count)])

def tparams(t): return [v for (n, v) in t.params if n.startswith('t')]

# ----------------------------------------------------------------- writer
def au(x, a): return (x + a - 1) // a * a

def write_data(root, v2022):
    """Returns data bytes, items [(node, flag, type, offset, count)], patches {fieldtype: [offsets]},
       touched types (THSH order), data-order item types."""
    index = {}; items = [None]; strpool = {}
    def assign(node, key=None):
        k = key if key is not None else id(node)
        if k in index: return False, index[k]
        index[k] = len(items); items.append([node, None]); return True, index[k]
    data = bytearray(); patches = defaultdict(list); fills = []
    touched = []; tseen = set(); order_types = []
    def touch(t):
        if id(t) not in tseen: tseen.add(id(t)); touched.append(t)
    assign(root)
    objq = deque([root])
    while objq:
        obj = objq.popleft()
        fifo = deque([obj])
        while fifo:
            node = fifo.popleft()
            idx = index[id(node)] if not isinstance(node, StrNode) else node._idx
            if isinstance(node, StrNode):
                al = 2; body = node.s + b'\0'; t = CHAR[0]; cnt = len(body); flag = 0x20
            else:
                t = node.type; cnt = node.count; body = node.raw
                al = ealign(t) if node.is_obj else 16; flag = 0x10 if node.is_obj else 0x20
            data += bytes(au(len(data), al) - len(data))
            off = len(data); data += body
            items[idx][1] = (flag, t, off, cnt)
            touch(t); order_types.append(t)
            if isinstance(node, StrNode): continue
            strs = []
            for (rel, k, ft) in scan_slots(t, cnt):
                if rel not in node.slots: continue
                ft2, tgt = node.slots[rel]
                assert ft2 is ft
                patches[id(ft)].append((ft, off + rel))
                if k == 6:
                    touch(ft); new, ti = assign(tgt)
                    if new: objq.append(tgt)
                    fills.append((off + rel, ti))
                elif k == 8:
                    touch(ft); new, ti = assign(tgt); assert new
                    fifo.append(tgt); fills.append((off + rel, ti))
                else:
                    strs.append((ft, tgt, off + rel))
            for ft, tgt, at in strs:
                touch(ft)
                key = ('s', tgt.s) if v2022 else None
                new, ti = assign(tgt, key)
                if new:
                    tgt._idx = ti; fifo.append(tgt)
                fills.append((at, ti))
    data += bytes(au(len(data), 16) - len(data))
    for at, ti in fills: data[at:at + 8] = struct.pack('<Q', ti)
    return bytes(data), items, patches, touched, order_types

CHAR = [None]

def order_types_2015(item_types):
    """model C: names in BFS order (parent, template args, subtype, members, interfaces);
       bodies in BFS order (parent, template args, members, subtype, interfaces); every type gets a body."""
    lst = []; seen = set(); bdone = set(); border = []; bq = deque()
    def reg(t):
        if t is not None and id(t) not in seen: seen.add(id(t)); lst.append(t)
    def need(t):
        if t is not None and id(t) not in bdone: bdone.add(id(t)); bq.append(t)
    for it in item_types:
        reg(it); need(it)
        while bq:
            x = bq.popleft(); border.append(x)
            regs = ([x.parent] + tparams(x) + [x.subtype] + [m.type for m in x.members or []] +
                    [a for a, o in x.interfaces or []])
            for d in regs: reg(d)
            bodies = ([x.parent] + tparams(x) + [m.type for m in x.members or []] + [x.subtype] +
                      [a for a, o in x.interfaces or []])
            for d in bodies: need(d)
    return lst, border

def order_types_2022(item_types):
    """model B: a name is registered together with its template type arguments (depth first);
       bodies are needed for item types, parents, member types and tuple element types (BFS)."""
    lst = []; seen = set(); bdone = set(); border = []; bq = deque()
    def reg(t):
        if t is None or id(t) in seen: return
        seen.add(id(t)); lst.append(t)
        for a in tparams(t): reg(a)
    def need(t):
        if id(t) not in bdone: bdone.add(id(t)); bq.append(t)
    for it in item_types:
        reg(it); need(it)
        while bq:
            x = bq.popleft(); border.append(x)
            if x.parent is not None: reg(x.parent); need(x.parent)
            if x.subtype is not None:
                reg(x.subtype)
                if x.format is not None and x.format & 0xFF == 0x28: need(x.subtype)
            for m in x.members or []: reg(m.type); need(m.type)
            for a, o in x.interfaces or []: reg(a)
    return lst, border

def section(tag, payload, leaf=True, pad=b'\0'):
    payload = payload + pad * ((-len(payload)) % 4)
    size = 8 + len(payload)
    return struct.pack('>I', (0x40000000 if leaf else 0) | size) + tag.encode() + payload

def write_tagfile(root, sdkv):
    v2022 = not sdkv.startswith(b'2015')
    data, items, patches, touched, item_types_in_data_order = write_data(root, v2022)
    tlist, border = (order_types_2022 if v2022 else order_types_2015)(item_types_in_data_order)
    tix = {id(t): i + 1 for i, t in enumerate(tlist)}
    def ix(t): return tix[id(t)] if t is not None else 0
    V = varint_bytes
    # strings
    tstr = []; tstr_ix = {}
    def ts(s):
        if s not in tstr_ix: tstr_ix[s] = len(tstr); tstr.append(s)
        return tstr_ix[s]
    if v2022:
        done = set()
        def regs(t):
            if id(t) in done: return
            done.add(id(t)); ts(t.name)
            for pn, pv in t.params:
                ts(pn)
                if pn.startswith('t'): regs(pv)
        for t in tlist: regs(t)
    else:
        for t in tlist:
            ts(t.name)
            for pn, pv in t.params: ts(pn)
    tnam = bytearray(V(len(tlist) + 1))
    for t in tlist:
        tnam += V(tstr_ix[t.name]) + V(len(t.params))
        for pn, pv in t.params:
            tnam += V(tstr_ix[pn]) + V(ix(pv) if pn.startswith('t') else pv)
    fstr = []; fstr_ix = {}
    for t in border:
        for m in t.members or []:
            if m.name not in fstr_ix: fstr_ix[m.name] = len(fstr); fstr.append(m.name)
    tbod = bytearray()
    for t in border:
        tbod += V(ix(t)) + V(ix(t.parent)) + V(t.opt)
        if t.opt & 1: tbod += V(t.format)
        if t.opt & 2: tbod += V(ix(t.subtype))
        if t.opt & 4: tbod += V(t.version)
        if t.opt & 8: tbod += V(t.size) + V(t.align)
        if t.opt & 16: tbod += V(t.flags)
        if t.opt & 32:
            tbod += V(len(t.members))
            for m in t.members:
                tbod += V(fstr_ix[m.name]) + V(m.flags)
                if m.flags & 0x80: tbod += V(m.extra)
                tbod += V(m.offset) + V(ix(m.type))
        if t.opt & 64:
            tbod += V(len(t.interfaces))
            for a, o in t.interfaces: tbod += V(ix(a)) + V(o)
        if t.opt & 128: tbod += V(t.attr)
    hashed = [t for t in touched if t.hash is not None]
    assert len(hashed) == len(touched)
    thsh = bytearray(V(len(hashed)))
    for t in hashed: thsh += V(ix(t)) + struct.pack('<I', t.hash)
    spad = b'\xff' if v2022 else b'\0'
    tstr_b = b''.join(s.encode() + b'\0' for s in tstr)
    fstr_b = b''.join(s.encode() + b'\0' for s in fstr)
    names = ('TST1', 'TNA1', 'FST1', 'TBDY') if v2022 else ('TSTR', 'TNAM', 'FSTR', 'TBOD')
    type_sec = section('TYPE',
        section('TPTR', bytes(8 * (len(tlist) + 1))) +
        section(names[0], tstr_b, pad=spad) + section(names[1], bytes(tnam)) +
        section(names[2], fstr_b, pad=spad) + section(names[3], bytes(tbod)) +
        section('THSH', bytes(thsh)) + section('TPAD', b''), leaf=False)
    item_b = bytearray(12)
    for node, (flag, t, off, cnt) in items[1:]:
        item_b += struct.pack('<III', (flag << 24) | ix(t), off, cnt)
    ptch = bytearray()
    for key in sorted(patches, key=lambda k: ix(patches[k][0][0])):
        lst = patches[key]; offs = sorted(o for _, o in lst)
        ptch += struct.pack('<II', ix(lst[0][0]), len(offs)) + struct.pack('<%dI' % len(offs), *offs)
    indx = section('INDX', section('ITEM', bytes(item_b)) + section('PTCH', bytes(ptch)), leaf=False)
    return section('TAG0', section('SDKV', sdkv) + section('DATA', data) + type_sec + indx, leaf=False)

def write_phive(tag0, tail, hdr_magic):
    tag_off = 0x30
    aamp_off = au(tag_off + len(tag0), 16)
    tail_len = au(len(tail), 16)
    hdr = hdr_magic + struct.pack('<IIIII', tag_off, aamp_off, aamp_off + tail_len, aamp_off - tag_off, tail_len)
    hdr += bytes(tag_off - len(hdr))
    out = hdr + tag0 + bytes(aamp_off - tag_off - len(tag0)) + tail + bytes(tail_len - len(tail))
    return out

def roundtrip(path, shuffle_seed=None):
    b, tf = load(path)
    types, root = to_graph(tf)
    CHAR[0] = next(t for t in types if t.name == 'char')
    tag0 = write_tagfile(root, tf.sdkv)
    if b[:5] == b'Phive':
        tag_end = tf.end
        aamp_off = struct.unpack('<I', b[0x10:0x14])[0]
        tail_len = b'AAMP' == b[aamp_off:aamp_off + 4] and struct.unpack('<I', b[aamp_off + 12:aamp_off + 16])[0]
        tail = b[aamp_off:aamp_off + tail_len]    # opaque AAMP parameter archive (not Havok)
        out = write_phive(tag0, tail, b[:0x0c])
    else:
        out = tag0
    return b, out

if __name__ == '__main__':
    ok = 0
    for f in FILES:
        b, out = roundtrip(f)
        same = b == out
        ok += same
        if not same:
            n = min(len(b), len(out))
            d = next((i for i in range(n) if b[i] != out[i]), n)
            print(os.path.basename(f), 'DIFF at', hex(d), 'len', len(b), len(out), b[d:d+16].hex(), out[d:d+16].hex())
        else:
            print(os.path.basename(f), 'byte-identical', len(b))
    print('%d/%d byte-identical' % (ok, len(FILES)))
