import warp


@warp.func
def smoothstep(edge0: float, edge1: float, x: float) -> float:
    t = warp.clamp((x - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


@warp.kernel
def apply_smoothstep(values: warp.array(dtype=warp.float32), lo: float, hi: float):
    i = warp.tid()
    values[i] = smoothstep(lo, hi, values[i])


@warp.kernel(enable_backward=False)
def offsets(points: warp.array(dtype=warp.vec3), offset: warp.vec3):
    i = warp.tid()
    points[i] = points[i] + offset
