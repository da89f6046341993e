# wp.identity(n=..., dtype=...) for the dtypes and sizes Warp 1.19 takes: any
# numeric scalar type (float16, bfloat16 and the integers included) and any
# matrix size, positionally or by keyword. Each identity is read back
# component by component and stored, so the values compare with warp-lang.
import warp as wp

mat33bf = wp.types.matrix(shape=(3, 3), dtype=wp.bfloat16)


@wp.kernel
def half_identities(xs: wp.array(dtype=float), halves: wp.array(dtype=wp.mat33h), out: wp.array(dtype=float)):
    i = wp.tid()
    h = wp.identity(n=3, dtype=wp.float16)
    b = wp.identity(3, wp.bfloat16)
    halves[i] = h
    k = i % 3
    out[i] = float(h[k, k]) + float(h[k, (k + 1) % 3]) * 2.0 + float(b[k, k]) * 4.0 + float(b[0, 2]) * 8.0 + xs[i]


@wp.kernel
def bfloat16_scaled(xs: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    m = wp.identity(n=3, dtype=wp.bfloat16)
    m[1, 2] = wp.bfloat16(xs[i])
    v = mat33bf(m)
    out[i] = float(v[1, 1]) + float(v[1, 2]) + float(v[2, 1]) * 3.0


@wp.kernel
def integer_identities(counts: wp.array(dtype=int), bytes_out: wp.array(dtype=wp.uint8)):
    i = wp.tid()
    m = wp.identity(n=4, dtype=wp.int32)
    u = wp.identity(dtype=wp.uint8, n=2)
    counts[i] = m[i % 4, 1] * 10 + m[2, 2] + counts[i] * 100
    bytes_out[i] = u[i % 2, 0] + u[1, 1] * wp.uint8(2)


@wp.kernel
def sizes(xs: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    one = wp.identity(n=1, dtype=float)
    five = wp.identity(n=5, dtype=wp.float64)
    six = wp.identity(n=6, dtype=float)
    out[i] = five[i % 5, i % 5] * xs[i] + five[0, 4] + wp.float64(one[0, 0] * 3.0 + six[5, 5] * 7.0)
