# A generic scalar parameter and a generic helper that builds typed constants.
from typing import Any

import warp as wp


@wp.func
def smoothstep(e0: Any, e1: Any, x: Any):
    t = wp.clamp((x - e0) / (e1 - e0), type(x)(0.0), type(x)(1.0))
    return t * t * (type(x)(3.0) - type(x)(2.0) * t)


@wp.kernel
def threshold(x: wp.array(dtype=Any), edge: Any, y: wp.array(dtype=Any)):
    i = wp.tid()
    y[i] = smoothstep(edge * type(edge)(0.5), edge, x[i])


wp.overload(threshold, {"x": wp.array(dtype=wp.float64), "edge": wp.float64, "y": wp.array(dtype=wp.float64)})
wp.overload(threshold, {"x": wp.array(dtype=wp.float32), "edge": wp.float32, "y": wp.array(dtype=wp.float32)})
