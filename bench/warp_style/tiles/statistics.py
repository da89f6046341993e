# Mean, variance and a min-max rescale of a 16 x 16 image in one block, by column sums.
import warp as wp


@wp.func
def rescale(x: float, lo: float, scale: float):
    return (x - lo) * scale


@wp.kernel
def stats(img: wp.array2d(dtype=float), col_means: wp.array(dtype=float), out: wp.array2d(dtype=float),
          moments: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(img, shape=(16, 16))
    cols = wp.tile_sum(t, axis=0) / 16.0
    lo = wp.tile_min(t)[0]
    hi = wp.tile_max(t)[0]
    mean = wp.tile_sum(t)[0] / 256.0
    d = wp.tile_map(wp.sub, t, mean)
    if i == 0:
        wp.tile_store(col_means, cols)
        wp.tile_store(out, wp.tile_map(rescale, t, lo, 1.0 / (hi - lo)))
        moments[0] = mean
        moments[1] = wp.tile_sum(d * d)[0] / 256.0
