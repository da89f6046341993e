# Layer normalization of each row: mean and variance by tile reductions, then a per-element map.
import warp as wp

N = wp.constant(16)


@wp.func
def normalize(x: float, mean: float, inv_std: float):
    return (x - mean) * inv_std


@wp.kernel
def layer_norm(x: wp.array2d(dtype=float), gamma: wp.array(dtype=float), y: wp.array2d(dtype=float)):
    i = wp.tid()
    row = wp.tile_load(x, shape=(1, N), offset=(i, 0))
    mean = wp.tile_sum(row)[0] / float(N)
    centered = wp.tile_map(wp.sub, row, mean)
    var = wp.tile_sum(centered * centered)[0] / float(N)
    inv_std = 1.0 / wp.sqrt(var + 1.0e-5)
    g = wp.tile_reshape(wp.tile_load(gamma, shape=N), shape=(1, N))
    out = wp.tile_map(normalize, row, mean, inv_std) * g
    wp.tile_store(y, out, offset=(i, 0))
