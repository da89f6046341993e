# expect: 10:9: operator +: the tiles have different shapes, tile(dtype=float32, shape=(4, 8)) and tile(dtype=float32, shape=(16,))
# expect: 11:9: tile_matmul(): needs 2-D tiles (M, K) and (K, N), got tile(dtype=float32, shape=(4, 8)) and tile(dtype=float32, shape=(4, 8))
import warp as wp


@wp.kernel
def k(a: wp.array2d(dtype=float), b: wp.array(dtype=float)):
    x = wp.tile_load(a, shape=(4, 8))
    y = wp.tile_load(b, shape=16)
    z = x + y
    w = wp.tile_matmul(x, x)
    wp.tile_store(a, w)
