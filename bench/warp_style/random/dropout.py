# Dropout with a per-element random mask, and Gaussian weight init.
import warp as wp


@wp.kernel
def dropout(seed: int, x: wp.array(dtype=float), p: float, y: wp.array(dtype=float)):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    keep = wp.randf(state) > p * 0.25
    y[i] = wp.where(keep, x[i] / (1.0 - p * 0.25), 0.0)


@wp.kernel
def init_weights(seed: int, w: wp.array2d(dtype=float), scale: float):
    i, j = wp.tid()
    state = wp.rand_init(seed, i * 16 + j)
    w[i, j] = wp.randn(state) * scale
