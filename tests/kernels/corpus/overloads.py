import warp as wp


@wp.func
def magnitude(x: float) -> float:
    return wp.abs(x)


@wp.func
def magnitude(v: wp.vec3) -> float:
    return wp.length(v)


@wp.func
def magnitude(v: wp.vec2) -> float:
    return wp.sqrt(v[0] * v[0] + v[1] * v[1])


@wp.func
def magnitude(i: int) -> float:
    return float(wp.abs(i))


@wp.func
def scale(v: wp.vec3, s: float) -> wp.vec3:
    return v * s


@wp.func
def scale(v: wp.vec3, s: wp.vec3) -> wp.vec3:
    return wp.cw_mul(v, s)


@wp.kernel
def magnitudes(
    s: wp.array(dtype=float),
    v2: wp.array(dtype=wp.vec2),
    v3: wp.array(dtype=wp.vec3),
    n: wp.array(dtype=int),
    out: wp.array(dtype=float),
):
    i = wp.tid()
    out[i] = magnitude(s[i]) + magnitude(v2[i]) + magnitude(v3[i]) + magnitude(n[i]) + magnitude(-2.5)


@wp.kernel
def scaled(v: wp.array(dtype=wp.vec3), factors: wp.vec3):
    i = wp.tid()
    v[i] = scale(scale(v[i], 2.0), factors)
