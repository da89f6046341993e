# saxpy by tiles: tile_axpy into a loaded tile, and the same with operators.
import warp as wp

BLOCK = wp.constant(16)


@wp.kernel
def saxpy(alpha: float, x: wp.array(dtype=float), y: wp.array(dtype=float), z: wp.array(dtype=float)):
    i = wp.tid()
    a = wp.tile_load(x, shape=BLOCK, offset=i * BLOCK)
    b = wp.tile_load(y, shape=BLOCK, offset=i * BLOCK)
    c = a * alpha + b
    wp.tile_axpy(alpha, a, b)
    wp.tile_store(y, b, offset=i * BLOCK)
    wp.tile_store(z, c - b, offset=i * BLOCK)
