# Outer products of two vectors by a (N, 1) x (1, N) tile_matmul, accumulated with beta.
import warp as wp

N = wp.constant(16)


@wp.kernel
def outer(u: wp.array2d(dtype=float), v: wp.array2d(dtype=float), m: wp.array2d(dtype=float)):
    i = wp.tid()
    a = wp.tile_load(u, shape=(N, 1))
    b = wp.tile_load(v, shape=(1, N))
    acc = wp.tile_load(m, shape=(N, N))
    wp.tile_matmul(a, b, acc, alpha=0.5, beta=2.0)
    if i == 0:
        wp.tile_store(m, acc)
