# Generic helper functions (x: Any) called with floats, doubles and vectors
# from ordinary kernels.
from typing import Any

import warp as wp


@wp.func
def lerp3(a: Any, b: Any, t: Any):
    return a + (b - a) * t


@wp.func
def square(x: Any):
    return x * x


@wp.kernel
def blend(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = lerp3(a[i], b[i], 0.25) + square(a[i])


@wp.kernel
def blend_d(a: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = lerp3(a[i], out[i], wp.float64(0.5)) + square(a[i])


@wp.kernel
def blend_v(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = lerp3(a[i], b[i], 0.75)
