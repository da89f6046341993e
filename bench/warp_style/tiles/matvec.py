# Matrix-vector products by tile_matmul with a one-column tile, and row dot products.
import warp as wp

ROWS = wp.constant(4)
N = wp.constant(16)


@wp.kernel
def matvec(m: wp.array2d(dtype=float), v: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    a = wp.tile_load(m, shape=(ROWS, N), offset=(i * ROWS, 0))
    x = wp.tile_load(v, shape=(N, 1))
    wp.tile_store(out, wp.tile_matmul(a, x), offset=(i * ROWS, 0))


@wp.kernel
def row_dots(m: wp.array2d(dtype=float), v: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    row = wp.tile_load(m[i % 16], shape=N)
    d = wp.tile_dot(row, wp.tile_load(v, shape=N))
    if i < 16:
        out[i] = d[0]
