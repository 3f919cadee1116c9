import os
import rebuild as R
from rebuild import *
import itertools

def run(label):
    ok = 0
    for f in FILES:
        try:
            b, out = R.roundtrip(f); ok += (b == out)
        except Exception as e:
            pass
    print(f'{label}: {ok}/6 identical')
    return ok

# 0. opt derived from field presence
def derive_opt(t):
    o = 0
    if t.format is not None: o |= 1
    if t.subtype is not None: o |= 2
    if t.version is not None: o |= 4
    if t.size is not None: o |= 8
    if t.flags is not None: o |= 16
    if t.members is not None: o |= 32
    if t.interfaces is not None: o |= 64
    if t.attr is not None: o |= 128
    return o
cnt = Counter()
for f in FILES:
    b, tf = load(f); types, root = to_graph(tf)
    for t in types:
        if t.has_body: cnt[derive_opt(t) == t.opt] += 1
print('opt == presence bits:', dict(cnt))
run('baseline')
# negative controls
orig_scan = R.scan_slots
def scan_elem(t, count):
    es = esize(t)
    for e in range(count):
        for (o, k, ft) in orig_scan(t, 1): yield (o + e * es, k, ft)
R.scan_slots = scan_elem; run('element-major scan'); R.scan_slots = orig_scan
orig_au = R.au
src_write = R.write_data
# arrays aligned 8 instead of 16
import types as _t
code = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'rebuild.py')).read()
def variant(old, new, label):
    assert old in code, old
    ns = {'__file__': os.path.join(os.path.dirname(os.path.abspath(__file__)), 'rebuild.py')}
    exec(compile(code.replace(old, new).replace("if __name__ == '__main__':", "if False:"), 'v', 'exec'), ns)
    ok = 0
    for f in FILES:
        try:
            b, out = ns['roundtrip'](f); ok += (b == out)
        except Exception as e: pass
    print(f'{label}: {ok}/6 identical')
variant("al = ealign(t) if node.is_obj else 16", "al = ealign(t) if node.is_obj else 8", 'arrays aligned 8')
variant("al = ealign(t) if node.is_obj else 16", "al = 16", 'objects aligned 16')
variant("al = 2; body", "al = 1; body", 'strings aligned 1')
variant("key = ('s', tgt.s) if v2022 else None", "key = None", 'no string dedup in 2022')
variant("key = ('s', tgt.s) if v2022 else None", "key = ('s', tgt.s)", 'string dedup in 2015 too')
variant("""            for ft, tgt, at in strs:
                touch(ft)""", """            for ft, tgt, at in []:
                touch(ft)""", 'x')  if False else None
variant("tlist, border = (order_types_2022 if v2022 else order_types_2015)(item_types_in_data_order)",
        "tlist, border = order_types_2015(item_types_in_data_order)", '2015 type order model for both')
variant("tlist, border = (order_types_2022 if v2022 else order_types_2015)(item_types_in_data_order)",
        "tlist, border = order_types_2022(item_types_in_data_order)", '2022 type order model for both')
variant("spad = b'\\xff' if v2022 else b'\\0'", "spad = b'\\0'", 'zero string padding everywhere')
