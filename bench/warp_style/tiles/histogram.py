# Histogram counts by tile_atomic_add of one-hot tiles, and a tile of counts per block.
import warp as wp

BINS = wp.constant(8)


@wp.func
def hit(value: int, bin: int):
    return wp.where(value == bin, 1, 0)


@wp.kernel
def histogram(values: wp.array(dtype=int), counts: wp.array(dtype=int)):
    i = wp.tid()
    if i < 64:
        v = values[i]
        onehot = wp.tile_map(hit, wp.tile_full(BINS, v, dtype=int), wp.tile_arange(BINS, dtype=int))
        wp.tile_atomic_add(counts, onehot)
