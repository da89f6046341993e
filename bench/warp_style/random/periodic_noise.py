# Tileable textures from periodic noise.
import warp as wp


@wp.kernel
def tileable(seed: int, tex: wp.array2d(dtype=float)):
    i, j = wp.tid()
    state = wp.rand_init(seed)
    p = wp.vec2(float(i) * 0.5, float(j) * 0.5)
    tex[i, j] = wp.pnoise(state, p, 8, 8)


@wp.kernel
def tileable_1d(seed: int, out: wp.array(dtype=float)):
    i = wp.tid()
    state = wp.rand_init(seed)
    out[i] = wp.pnoise(state, float(i) * 0.25, 16)
