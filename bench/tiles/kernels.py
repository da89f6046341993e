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


# Warp's tiled MLP example's shapes (example_tile_mlp.py: 32 inputs, three hidden layers of 32,
# 3 outputs, 32 samples per block), float32, the features loaded from an array instead of wp.tile(x).
DIM_IN = wp.constant(32)
DIM_HID = wp.constant(32)
DIM_OUT = wp.constant(3)
BATCH = wp.constant(32)


@wp.func
def relu(x: float):
    return wp.max(x, 0.0)


@wp.kernel
def mlp(features: wp.array2d(dtype=float), weights_0: wp.array2d(dtype=float), bias_0: wp.array2d(dtype=float),
        weights_1: wp.array2d(dtype=float), bias_1: wp.array2d(dtype=float), weights_2: wp.array2d(dtype=float),
        bias_2: wp.array2d(dtype=float), weights_3: wp.array2d(dtype=float), bias_3: wp.array2d(dtype=float),
        reference: wp.array2d(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    f = wp.tile_load(features, shape=(DIM_IN, BATCH), offset=(0, i * BATCH))
    w0 = wp.tile_load(weights_0, shape=(DIM_HID, DIM_IN))
    b0 = wp.tile_load(bias_0, shape=(DIM_HID, 1))
    z = wp.tile_map(relu, wp.tile_matmul(w0, f) + wp.tile_broadcast(b0, shape=(DIM_HID, BATCH)))
    w1 = wp.tile_load(weights_1, shape=(DIM_HID, DIM_HID))
    b1 = wp.tile_load(bias_1, shape=(DIM_HID, 1))
    z = wp.tile_map(relu, wp.tile_matmul(w1, z) + wp.tile_broadcast(b1, shape=(DIM_HID, BATCH)))
    w2 = wp.tile_load(weights_2, shape=(DIM_HID, DIM_HID))
    b2 = wp.tile_load(bias_2, shape=(DIM_HID, 1))
    z = wp.tile_map(relu, wp.tile_matmul(w2, z) + wp.tile_broadcast(b2, shape=(DIM_HID, BATCH)))
    w3 = wp.tile_load(weights_3, shape=(DIM_OUT, DIM_HID))
    b3 = wp.tile_load(bias_3, shape=(DIM_OUT, 1))
    o = wp.tile_map(relu, wp.tile_matmul(w3, z) + wp.tile_broadcast(b3, shape=(DIM_OUT, BATCH)))
    e = o - wp.tile_load(reference, shape=(DIM_OUT, BATCH), offset=(0, i * BATCH))
    wp.tile_atomic_add(loss, wp.tile_sum(e * e) * 0.0001)
