# Procedural terrain from Perlin noise: 1-D, 2-D and 3-D lookups, octaves.
import warp as wp


@wp.kernel
def terrain(seed: int, height: wp.array2d(dtype=float)):
    i, j = wp.tid()
    state = wp.rand_init(seed)
    p = wp.vec2(float(i) * 0.23, float(j) * 0.19)
    h = float(0.0)
    amp = float(1.0)
    for o in range(3):
        h += amp * wp.noise(state, p)
        p = p * 2.0
        amp = amp * 0.5
    height[i, j] = h


@wp.kernel
def density(seed: int, x: wp.array(dtype=wp.vec3), d: wp.array(dtype=float), t: wp.array(dtype=float)):
    i = wp.tid()
    state = wp.rand_init(seed)
    d[i] = wp.noise(state, x[i] * 1.7)
    t[i] = wp.noise(state, float(i) * 0.31) + wp.noise(state, wp.vec4(x[i][0], x[i][1], x[i][2], 0.5))
