# A tile kernel whose gradient weft refuses (tiles are recomputed for the
# backward pass, never saved): power iteration carries v into the next product.
import warp as wp

N = wp.constant(8)


@wp.kernel
def carried(x: wp.array2d(dtype=wp.float64), out: wp.array2d(dtype=wp.float64)):
    # Power iteration: x's tile carried from one iteration into the next product (refused).
    i = wp.tid()
    a = wp.tile_load(x, shape=(N, N))
    v = wp.tile_ones(shape=(N, 1), dtype=wp.float64)
    for k in range(3):
        v = wp.tile_matmul(a, v)
    wp.tile_store(out, v)


@wp.kernel
def scale(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    # The module's other kernels keep their backward passes.
    i = wp.tid()
    out[i] = x[i] * wp.float64(3.0)
