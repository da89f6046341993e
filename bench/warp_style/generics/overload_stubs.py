# Kernel overloads declared with @wp.overload stubs (the style of Warp's own
# sparse and fem modules).
from typing import Any

import warp as wp


@wp.kernel
def accumulate(src: wp.array(dtype=Any), dst: wp.array(dtype=Any), weight: float):
    i = wp.tid()
    dst[i] = dst[i] + src[i] * weight


@wp.overload
def accumulate(src: wp.array(dtype=wp.vec3), dst: wp.array(dtype=wp.vec3), weight: float):
    ...


@wp.overload
def accumulate(src: wp.array(dtype=float), dst: wp.array(dtype=float), weight: float):
    ...
