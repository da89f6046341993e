# float64 tiles: a compensated-looking reduction and a matrix product in double precision.
import warp as wp


@wp.kernel
def doubles(a: wp.array2d(dtype=wp.float64), b: wp.array2d(dtype=wp.float64), c: wp.array2d(dtype=wp.float64),
            total: wp.array(dtype=wp.float64)):
    i = wp.tid()
    x = wp.tile_load(a, shape=(8, 16), offset=(i * 8, 0))
    y = wp.tile_load(b, shape=(16, 8))
    wp.tile_store(c, wp.tile_matmul(x, y), offset=(i * 8, 0))
    wp.tile_atomic_add(total, wp.tile_sum(wp.tile_map(wp.sqrt, x)))
