# Tile kernels for the gradient tests (float64: checked against central finite
# differences), each launched tiled with its grid counting blocks.
import warp as wp

N = wp.constant(8)
TK = wp.constant(4)


@wp.func
def wave(x: wp.float64, s: wp.float64):
    return wp.sin(x) * x + s * x * x


@wp.kernel
def map_store(x: wp.array(dtype=wp.float64), s: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    t = wp.tile_load(x, shape=N, offset=i * N)
    y = wp.tile_map(wave, t, s[0]) + t * t - t / wp.float64(3.0)
    wp.tile_store(out, y, offset=i * N)


@wp.kernel
def gemm(A: wp.array2d(dtype=wp.float64), B: wp.array2d(dtype=wp.float64), C: wp.array2d(dtype=wp.float64)):
    i, j = wp.tid()
    acc = wp.tile_zeros(shape=(N, N), dtype=wp.float64)
    for k in range(A.shape[1] // TK):
        a = wp.tile_load(A, shape=(N, TK), offset=(i * N, k * TK))
        b = wp.tile_load(B, shape=(TK, N), offset=(k * TK, j * N))
        wp.tile_matmul(a, b, acc)
    wp.tile_store(C, acc, offset=(i * N, j * N))


@wp.kernel
def normalize_rows(x: wp.array2d(dtype=wp.float64), out: wp.array2d(dtype=wp.float64)):
    i = wp.tid()
    row = wp.tile_load(x, shape=(1, N), offset=(i, 0))
    mean = wp.tile_sum(row)[0] / wp.float64(8.0)
    centered = wp.tile_map(wp.sub, row, mean)
    var = wp.tile_sum(centered * centered)[0] / wp.float64(8.0)
    wp.tile_store(out, centered / wp.sqrt(var + wp.float64(0.1)), offset=(i, 0))


@wp.kernel
def assorted(x: wp.array2d(dtype=wp.float64), v: wp.array(dtype=wp.float64), alpha: wp.array(dtype=wp.float64),
             out: wp.array2d(dtype=wp.float64), total: wp.array(dtype=wp.float64)):
    i = wp.tid()
    m = wp.tile_load(x, shape=(4, 8))
    t = wp.tile_transpose(m)
    w = wp.tile_load(v, shape=8)
    b = wp.tile_broadcast(wp.tile_reshape(w, shape=(1, 8)), shape=(4, 8))
    p = wp.tile_matmul(m, t, alpha=alpha[0])
    s = wp.tile_scan_inclusive(w)
    d = wp.tile_dot(w, s)
    hi = wp.tile_max(w)
    y = m * b + wp.tile_full(shape=(4, 8), value=d[0] + hi[0], dtype=wp.float64)
    wp.tile_axpy(alpha[0], m, y)
    if i == 0:
        wp.tile_store(out, y)
        wp.tile_store(out, p, offset=(4, 0))
        total[0] = wp.tile_extract(p, 1, 2) + m[3, 5] * wp.tile_sum(t, axis=1)[2]
    wp.tile_atomic_add(total, wp.tile_sum(w * w), offset=1)


@wp.func
def softplus(x: wp.float64):
    return wp.log(wp.float64(1.0) + wp.exp(x))


@wp.kernel
def mlp_layers(features: wp.array2d(dtype=wp.float64), w0: wp.array2d(dtype=wp.float64),
               b0: wp.array2d(dtype=wp.float64), w1: wp.array2d(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    # Warp's tiled MLP: z reassigned layer after layer (each a new value: weft renames it).
    i = wp.tid()
    z = wp.tile_load(features, shape=(N, 4), offset=(0, i * 4))
    w = wp.tile_load(w0, shape=(N, N))
    b = wp.tile_load(b0, shape=(N, 1))
    z = wp.tile_map(softplus, wp.tile_matmul(w, z) + wp.tile_broadcast(b, shape=(N, 4)))
    w = wp.tile_load(w1, shape=(N, N))
    z = wp.tile_map(softplus, wp.tile_matmul(w, z) - wp.tile_broadcast(b, shape=(N, 4)))
    wp.tile_atomic_add(loss, wp.tile_sum(z * z))


@wp.kernel
def reduced(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    # tile_reduce with wp.add, wp.min and wp.max: the adjoints of tile_sum, tile_min and tile_max.
    i = wp.tid()
    t = wp.tile_load(x, shape=N, offset=i * N)
    s = wp.tile_reduce(wp.add, t * t)
    lo = wp.tile_reduce(wp.min, t)
    hi = wp.tile_reduce(wp.max, t)
    out[i] = s[0] + lo[0] * hi[0]
