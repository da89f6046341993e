# Uniform points on triangles (barycentrics), Poisson event counts.
import warp as wp


@wp.kernel
def scatter_on_triangle(seed: int, a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3),
                        c: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3), events: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    uv = wp.sample_triangle(state)
    u = uv[0]
    v = uv[1]
    out[i] = a[i] * u + b[i] * v + c[i] * (1.0 - u - v)
    events[i] = wp.poisson(state, 3.5)
