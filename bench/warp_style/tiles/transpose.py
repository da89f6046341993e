# Blocked matrix transpose through tiles, and a symmetric part (A + A^T) / 2.
import warp as wp

T = wp.constant(4)


@wp.kernel
def transpose(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    i, j = wp.tid()
    t = wp.tile_load(a, shape=(T, T), offset=(i * T, j * T))
    wp.tile_store(b, wp.tile_transpose(t), offset=(j * T, i * T))


@wp.kernel
def symmetric(a: wp.array2d(dtype=float), s: wp.array2d(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=(16, 16))
    if i == 0:
        wp.tile_store(s, (t + wp.tile_transpose(t)) * 0.5)
