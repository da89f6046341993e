# step, nonzero, smoothstep, frac, cbrt, erf, erfc, isinf and bit_count, with
# gradients: tests/unit/test_warp_semantics.cpp holds warp-lang 1.19's values.
import warp as wp

@wp.kernel
def misc2(a: wp.array(dtype=float), ia: wp.array(dtype=int), o: wp.array(dtype=float), io: wp.array(dtype=int), loss: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    s = wp.smoothstep(0.25, 1.5, x)
    o[i * 4 + 0] = wp.step(x - 1.0) + wp.nonzero(x - 0.75) + s
    o[i * 4 + 1] = wp.frac(x * 3.7) + wp.cbrt(x) + wp.erf(x) + wp.erfc(x * 0.5)
    o[i * 4 + 2] = float(wp.isinf(x * 1.0e30 * 1.0e30)) + wp.frac(-x * 2.3)
    o[i * 4 + 3] = wp.float32(wp.step(ia[i] - 2) + wp.nonzero(ia[i] - 1))
    io[i] = wp.bit_count(ia[i] * 37) + wp.bit_count(wp.uint64(ia[i]) * wp.uint64(12345))
    wp.atomic_add(loss, 0, s * 2.0 + wp.cbrt(x) + wp.erf(x) - wp.erfc(x) + wp.smoothstep(x, 2.0, 1.0))
