# typing.Any spelled through the typing module, in a kernel and a function.
import typing

import warp as wp


@wp.func
def clamp01(x: typing.Any):
    return wp.clamp(x, type(x)(0.0), type(x)(1.0))


@wp.kernel
def saturate(src: wp.array(dtype=typing.Any), dst: wp.array(dtype=typing.Any)):
    i = wp.tid()
    dst[i] = clamp01(src[i] - dst[i])


wp.overload(saturate, {"src": wp.array(dtype=wp.float32), "dst": wp.array(dtype=wp.float32)})
wp.overload(saturate, {"src": wp.array(dtype=wp.float16), "dst": wp.array(dtype=wp.float16)})
