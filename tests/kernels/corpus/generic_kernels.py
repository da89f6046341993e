# Generic kernels and their instances (wp.overload in its three forms).
import warp as wp
from typing import Any


@wp.kernel
def scale(x: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    x[i] = s * x[i]


wp.overload(scale, [wp.array(dtype=wp.float32), wp.float32])
wp.overload(scale, {"x": wp.array(dtype=wp.float64), "s": wp.float64})


@wp.overload
def scale(x: wp.array(dtype=wp.vec3), s: float):
    ...


# A repeated declaration is the same instance, as in Warp.
wp.overload(scale, [wp.array(dtype=wp.float32), wp.float32])


@wp.kernel
def axpy(y: wp.array(dtype=wp.Float), x: wp.array(dtype=wp.Float), a: float):
    i = wp.tid()
    y[i] = y[i] + type(y[i])(a) * x[i]


wp.overload(axpy, [wp.array(dtype=wp.float32), wp.array(dtype=wp.float32), float])
wp.overload(axpy, [wp.array(dtype=wp.float64), wp.array(dtype=wp.float64), float])


@wp.kernel
def count_above(values: wp.array(dtype=Any), threshold: Any, count: wp.array(dtype=int)):
    i = wp.tid()
    if values[i] > threshold:
        wp.atomic_add(count, 0, 1)


wp.overload(count_above, {"values": wp.array(dtype=wp.int32), "threshold": wp.int32})
wp.overload(count_above, {"values": wp.array(dtype=wp.float32), "threshold": wp.float32})


@wp.kernel
def blend(out: wp.array2d(dtype=Any), a: wp.array2d(dtype=Any), b: wp.array2d(dtype=Any), t: float):
    i, j = wp.tid()
    out[i, j] = a[i, j] * (1.0 - t) + b[i, j] * t


wp.overload(blend, [wp.array2d(dtype=wp.vec2), wp.array2d(dtype=wp.vec2), wp.array2d(dtype=wp.vec2), float])
wp.overload(blend, [wp.array2d(dtype=float), wp.array2d(dtype=float), wp.array2d(dtype=float), float])
