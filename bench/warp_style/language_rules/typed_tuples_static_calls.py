# Functions that return annotated tuples (tuple[...], typing.Tuple[...]) and
# kernels that pick their operation with wp.static(f)(x).
import typing

import warp as wp


@wp.func
def polar(p: wp.vec2) -> tuple[float, float]:
    return wp.length(p), wp.atan2(p[1], p[0])


@wp.func
def bounds(a: float, b: float) -> typing.Tuple[float, float, int]:
    return wp.min(a, b), wp.max(a, b), wp.where(a < b, 1, 0)


@wp.func
def soft(x: float):
    return x / (1.0 + wp.abs(x))


@wp.kernel
def to_polar(p: wp.array(dtype=wp.vec2), r: wp.array(dtype=float), theta: wp.array(dtype=float),
             order: wp.array(dtype=int)):
    i = wp.tid()
    radius, angle = polar(p[i])
    lo, hi, ordered = bounds(radius, angle)
    r[i] = wp.static(soft)(radius) + hi - lo
    theta[i] = wp.static(wp.cos)(angle)
    order[i] = ordered
