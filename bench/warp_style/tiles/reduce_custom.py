# tile_reduce with builtins and a user function (largest absolute value, product of a few).
import warp as wp


@wp.func
def larger_magnitude(a: float, b: float):
    return wp.where(wp.abs(a) >= wp.abs(b), a, b)


@wp.kernel
def reduce_custom(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(x, shape=8, offset=i * 8)
    m = wp.tile_reduce(larger_magnitude, t - wp.tile_full(8, 1.0, dtype=float))
    p = wp.tile_reduce(wp.mul, t)
    lo = wp.tile_reduce(wp.min, t)
    if i < 8:
        out[i] = m[0] + p[0] - lo[0]
