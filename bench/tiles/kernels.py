# The tile kernels bench/tiles times in weft and in warp-lang (CPU), unedited in both.
import warp as wp

TILE = wp.constant(64)
TILE_K = wp.constant(64)
CHUNK = wp.constant(4096)


@wp.kernel
def gemm(A: wp.array2d(dtype=float), B: wp.array2d(dtype=float), C: wp.array2d(dtype=float)):
    i, j = wp.tid()
    acc = wp.tile_zeros(shape=(TILE, TILE), dtype=float)
    count = A.shape[1] // TILE_K
    for k in range(count):
        a = wp.tile_load(A, shape=(TILE, TILE_K), offset=(i * TILE, k * TILE_K))
        b = wp.tile_load(B, shape=(TILE_K, TILE), offset=(k * TILE_K, j * TILE))
        wp.tile_matmul(a, b, acc)
    wp.tile_store(C, acc, offset=(i * TILE, j * TILE))


@wp.kernel
def total(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=CHUNK, offset=i * CHUNK)
    wp.tile_atomic_add(out, wp.tile_sum(t))
