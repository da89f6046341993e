# Tiles: Warp's tiled GEMM (tile_matmul accumulating over k), matmul with
# alpha/beta, dot and axpy, tile_map and tile_reduce with builtins and user
# functions, float64 and integer tiles.
import warp as wp

TILE_M = wp.constant(8)
TILE_N = wp.constant(4)
TILE_K = wp.constant(8)


@wp.func
def larger(a: float, b: float):
    return wp.max(a, b)


@wp.func
def shifted_square(x: wp.float64, s: wp.float64):
    return (x - s) * (x - s)


@wp.kernel
def tile_gemm(A: wp.array2d(dtype=float), B: wp.array2d(dtype=float), C: wp.array2d(dtype=float)):
    i, j = wp.tid()
    total = wp.tile_zeros(shape=(TILE_M, TILE_N), dtype=float)
    K = A.shape[1]
    count = int(K / TILE_K)
    for k in range(0, count):
        a = wp.tile_load(A, shape=(TILE_M, TILE_K), offset=(i * TILE_M, k * TILE_K))
        b = wp.tile_load(B, shape=(TILE_K, TILE_N), offset=(k * TILE_K, j * TILE_N))
        wp.tile_matmul(a, b, total)
    wp.tile_store(C, total, offset=(i * TILE_M, j * TILE_N))


@wp.kernel
def matmul_scaled(A: wp.array2d(dtype=float), B: wp.array2d(dtype=float), C: wp.array2d(dtype=float)):
    i = wp.tid()
    a = wp.tile_load(A, shape=(4, 16), offset=(i * 4, 0))
    b = wp.tile_load(B, shape=(16, 8))
    c = wp.tile_matmul(a, b, alpha=0.5)
    d = wp.tile_load(C, shape=(4, 8), offset=(i * 4, 8))
    wp.tile_matmul(a, b, d, alpha=2.0, beta=-1.0)
    wp.tile_store(C, c, offset=(i * 4, 0))
    wp.tile_store(C, d, offset=(i * 4, 8))


# y changes in place after tile_dot reads it: weft keeps no tile for the backward pass, so no gradient.
@wp.kernel(enable_backward=False)
def dot_axpy(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = wp.tile_load(a, shape=8, offset=i * 8)
    y = wp.tile_load(a, shape=8, offset=i * 8 + 1)
    d = wp.tile_dot(x, y)
    wp.tile_axpy(2.0, x, y)
    m = wp.tile_reduce(larger, y)
    r = wp.tile_reduce(wp.min, x)
    if i < 7:
        out[i] = wp.tile_extract(d, 0) + m[0] - r[0]


@wp.kernel
def doubles(a: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    x = wp.tile_load(a, shape=16, offset=i * 16)
    s = wp.float64(0.5)
    y = wp.tile_map(shifted_square, x, s)
    z = wp.tile_map(wp.sqrt, y) + wp.tile_map(wp.mul, x, x)
    wp.tile_store(out, z, offset=i * 16)
    if i == 0:
        wp.tile_store(out, wp.tile_sum(z), offset=63)


@wp.kernel
def integers(a: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    x = wp.tile_load(a, shape=8, offset=i * 8)
    y = wp.tile_map(wp.max, x, 3) * x - wp.tile_arange(8, dtype=int)
    wp.tile_store(out, y, offset=i * 8)
    if i < 4:
        wp.tile_atomic_add(out, wp.tile_sum(x), offset=i + 60)
