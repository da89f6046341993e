# One dense layer with a bias and a ReLU per tile of samples: weights times inputs, then tile_map.
import warp as wp

DIM = wp.constant(16)
BATCH = wp.constant(4)


@wp.func
def relu(x: float):
    return wp.max(x, 0.0)


@wp.kernel
def dense(weights: wp.array2d(dtype=float), bias: wp.array2d(dtype=float), x: wp.array2d(dtype=float),
          y: wp.array2d(dtype=float)):
    i = wp.tid()
    w = wp.tile_load(weights, shape=(DIM, DIM))
    b = wp.tile_load(bias, shape=(DIM, BATCH))
    xs = wp.tile_load(x, shape=(DIM, BATCH), offset=(0, i * BATCH))
    z = wp.tile_matmul(w, xs) + b
    wp.tile_store(y, wp.tile_map(relu, z - wp.tile_full(shape=(DIM, BATCH), value=4.0, dtype=float)),
                  offset=(0, i * BATCH))
