import warp as wp
import typing


@wp.func
def weighted(a: typing.Any, w: wp.Scalar):
    return a * w


@wp.func
def wrap(i: wp.Int, n: wp.Int):
    r = i % n
    return wp.select(r < 0, r, r + n)


@wp.func
def average(a: typing.Any, b: typing.Any):
    return (a + b) * 0.5


@wp.kernel
def weights(
    v: wp.array(dtype=wp.vec3),
    d: wp.array(dtype=wp.float64),
    n32: wp.array(dtype=wp.int32),
    n64: wp.array(dtype=wp.int64),
    w: float,
):
    i = wp.tid()
    v[i] = weighted(v[i], w)
    d[i] = weighted(d[i], wp.float64(2.0))
    n32[i] = weighted(n32[i], 3)
    n32[i] = wrap(n32[i] - 10, 7)
    n64[i] = wrap(n64[i], wp.int64(1000))
    v[i] = average(v[i], wp.vec3(1.0, 0.0, 0.0))
    avg = average(w, 2.0)
    v[i] = v[i] * avg
