# Gram matrix A^T A of a block of rows, accumulated over blocks with tile_atomic_add.
import warp as wp

ROWS = wp.constant(4)


@wp.kernel
def gram(a: wp.array2d(dtype=float), g: wp.array2d(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=(ROWS, 16), offset=(i * ROWS, 0))
    wp.tile_atomic_add(g, wp.tile_matmul(wp.tile_transpose(t), t))
