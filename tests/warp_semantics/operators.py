# Operators and indexing whose meaning differs between C and Python: the
# kernel tests/unit/test_warp_semantics.cpp loads in weft and warp_side.py
# runs in warp-lang, one file for both.
import warp as wp


@wp.kernel
def ops(a: wp.array(dtype=int), out: wp.array(dtype=int), f: wp.array(dtype=float)):
    out[0] = 7 / 2
    out[1] = -7 // 2
    out[2] = -7 % 3
    out[3] = 7 % -3
    out[4] = a[-1]
    out[5] = a[-4]
    a[-2] = 99
    wp.atomic_add(a, -3, 1000)
    out[6] = -7 / 2
    out[7] = 7 // -2
    f[0] = -7.5 % 2.0
    f[1] = 7.5 % -2.0
    f[2] = -7.5 // 2.0
    f[3] = float(-7) / float(2)
    f[4] = wp.rint(2.5) + wp.rint(-0.5) * 10.0
    f[5] = wp.round(2.5) + wp.rint(-3.5) * 10.0
