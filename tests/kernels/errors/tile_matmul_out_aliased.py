# expect: 9:26: tile_matmul(): out must not be a or b
import warp as wp


@wp.kernel
def k(a: wp.array2d(dtype=float)):
    x = wp.tile_load(a, shape=(4, 4))
    y = wp.tile_load(a, shape=(4, 4), offset=(4, 0))
    wp.tile_matmul(x, y, x)
    wp.tile_store(a, x)
