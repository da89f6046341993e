# A 2-D box filter, generic over the pixel type (grey float or RGB vec3).
from typing import Any

import warp as wp


@wp.func
def at(img: wp.array2d(dtype=Any), i: int, j: int):
    return img[wp.clamp(i, 0, 15), wp.clamp(j, 0, 15)]


@wp.kernel
def box3(src: wp.array2d(dtype=Any), dst: wp.array2d(dtype=Any)):
    i, j = wp.tid()
    acc = src[i, j] * 0.0
    for di in range(-1, 2):
        for dj in range(-1, 2):
            acc += at(src, i + di, j + dj)
    dst[i, j] = acc / 9.0


wp.overload(box3, [wp.array2d(dtype=float), wp.array2d(dtype=float)])
wp.overload(box3, [wp.array2d(dtype=wp.vec3), wp.array2d(dtype=wp.vec3)])
