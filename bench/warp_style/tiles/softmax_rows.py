# Row softmax of a 16 x 16 matrix, one row per block: max, exp, sum, divide.
import warp as wp

N = wp.constant(16)


@wp.kernel
def softmax(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i = wp.tid()
    row = wp.tile_load(x, shape=(1, N), offset=(i, 0))
    m = wp.tile_max(row)
    e = wp.tile_map(wp.exp, row - wp.tile_broadcast(wp.tile_reshape(m, shape=(1, 1)), shape=(1, N)))
    s = wp.tile_sum(e)
    wp.tile_store(y, e / s[0], offset=(i, 0))
