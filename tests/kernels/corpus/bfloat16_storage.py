# bfloat16 as Warp has it: 16-bit storage whose arithmetic runs in float32 and
# rounds back to nearest even; conversions both ways, comparisons, math
# builtins, atomics, functions and user vectors of bfloat16. warp.corpus
# compares every array with warp-lang; test_cpu_kernels checks the rounding
# kernel's bits.
import warp as wp

vec3bf = wp.types.vector(length=3, dtype=wp.bfloat16)


@wp.func
def blend(a: wp.bfloat16, b: wp.bfloat16, t: float):
    return wp.bfloat16(float(a) * (1.0 - t) + float(b) * t)


@wp.kernel
def rounding(out: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    if i == 0:
        out[0] = wp.bfloat16(1.00390625)  # halfway between 1 and 1.0078125: to even (1)
        out[1] = wp.bfloat16(1.01171875)  # halfway: to even (1.015625)
        out[2] = wp.bfloat16(0.1)
        out[3] = wp.bfloat16(-3.4e38)  # rounds past the largest finite bfloat16: -infinity
        out[4] = wp.bfloat16(1.0e-40)  # a float32 subnormal, rounded like a normal
        out[5] = wp.bfloat16(wp.float64(2.0) / wp.float64(3.0))
        out[6] = wp.bfloat16(257)  # integers above 256 are not all representable
        out[7] = wp.bfloat16(wp.float16(0.1))
        out[8] = wp.bfloat16(1.0) + wp.bfloat16(0.00390625)  # computed in float32, one rounding
        out[9] = -wp.bfloat16(65504.0)


@wp.kernel
def conversions(
    x: wp.array(dtype=float),
    b: wp.array(dtype=wp.bfloat16),
    back: wp.array(dtype=float),
    h: wp.array(dtype=wp.float16),
    d: wp.array(dtype=wp.float64),
    n: wp.array(dtype=int),
):
    i = wp.tid()
    v = wp.bfloat16(x[i] * 1.001)
    b[i] = v
    back[i] = float(v)
    h[i] = wp.float16(v)
    d[i] = wp.float64(v) * wp.float64(3.0)
    n[i] = int(v * wp.bfloat16(10.0)) + wp.int32(wp.bfloat16(i))


@wp.kernel
def arithmetic(a: wp.array(dtype=wp.bfloat16), b: wp.array(dtype=wp.bfloat16), out: wp.array(dtype=wp.bfloat16),
               flags: wp.array(dtype=int), scale: wp.bfloat16):
    i = wp.tid()
    x = a[i] * scale
    y = b[i]
    s = x + y * wp.bfloat16(2.0) - x / y
    s = wp.max(s, -x)
    s = wp.clamp(s, wp.bfloat16(-4.0), wp.bfloat16(4.0))
    out[i] = wp.sqrt(wp.abs(s)) + wp.sin(x) * wp.floor(y * wp.bfloat16(3.0)) + blend(x, y, 0.25)
    f = 0
    if x < y:
        f = f + 1
    if x == y:
        f = f + 10
    if x >= wp.bfloat16(1.0):
        f = f + 100
    if wp.isfinite(x / (y - y)):
        f = f + 1000
    flags[i] = f + int(wp.where(x > y, wp.bfloat16(5.0), wp.bfloat16(0.0)))


@wp.kernel
def atomics(x: wp.array(dtype=wp.bfloat16), total: wp.array(dtype=wp.bfloat16), peak: wp.array(dtype=wp.bfloat16),
            low: wp.array(dtype=wp.bfloat16), grid: wp.array2d(dtype=wp.bfloat16)):
    i = wp.tid()
    # Multiples of 1/64 below 4 (the inputs are too): every partial sum is exact
    # in bfloat16, so the order the threads add in does not matter.
    wp.atomic_add(total, i % 4, wp.bfloat16(float(i % 3) / 64.0))
    wp.atomic_sub(total, 4 + i % 4, wp.bfloat16(0.03125))
    wp.atomic_max(peak, 0, x[i])
    wp.atomic_min(low, i % 2, x[i] * wp.bfloat16(-1.5))
    grid[i % 4, i % 5] += wp.bfloat16(1.0)  # one value: the same roundings in any order


@wp.kernel
def vectors(p: wp.array(dtype=vec3bf), q: wp.array(dtype=vec3bf), out: wp.array(dtype=vec3bf),
            lengths: wp.array(dtype=float)):
    i = wp.tid()
    v = p[i] + q[i] * wp.bfloat16(0.5)
    v[1] = v[0] - v[2]
    out[i] = -v
    lengths[i] = float(v[0]) * float(v[1]) + float(v[2])
