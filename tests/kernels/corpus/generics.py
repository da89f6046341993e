import warp as wp
from typing import Any


@wp.func
def lerp(a: Any, b: Any, t: float):
    return a * (1.0 - t) + b * t


@wp.func
def square(x: wp.Float):
    return x * x


@wp.func
def sum3(a: Any, b: Any, c: Any):
    return a + b + c


@wp.func
def clamp_index(i: wp.Int, n: wp.Int):
    return wp.min(wp.max(i, 0), n - 1)


@wp.kernel
def generic_users(
    f32: wp.array(dtype=wp.float32),
    f64: wp.array(dtype=wp.float64),
    v: wp.array(dtype=wp.vec3),
    ints: wp.array(dtype=int),
    t: float,
):
    i = wp.tid()
    f32[i] = square(f32[i]) + lerp(0.0, 1.0, t)
    f64[i] = square(f64[i])
    v[i] = lerp(v[i], wp.vec3(1.0, 1.0, 1.0), t)
    ints[i] = sum3(ints[i], 1, 2)
    f32[i] = sum3(f32[i], 0.5, f32[i])
    v[i] = sum3(v[i], v[i], wp.vec3(0.0))


@wp.kernel
def gather_clamped(src: wp.array(dtype=float), idx32: wp.array(dtype=wp.int32), idx64: wp.array(dtype=wp.int64), out: wp.array(dtype=float)):
    i = wp.tid()
    a = clamp_index(idx32[i], len(src))
    b = clamp_index(idx64[i], wp.int64(len(src)))
    out[i] = src[a] + src[b]
