# Divergence-free flow fields advecting particles with curl noise.
import warp as wp


@wp.kernel
def advect(seed: int, x: wp.array(dtype=wp.vec3), dt: float):
    i = wp.tid()
    state = wp.rand_init(seed)
    v = wp.curlnoise(state, wp.vec4(x[i][0], x[i][1], x[i][2], 0.25), wp.uint32(2), 2.0, 0.5)
    x[i] = x[i] + v * dt


@wp.kernel
def flow2d(seed: int, p: wp.array(dtype=wp.vec2), v: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    state = wp.rand_init(seed)
    v[i] = wp.curlnoise(state, p[i] * 3.0)
