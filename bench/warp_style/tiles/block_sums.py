# Per-block sums of a 1-D array and a grand total by tile_atomic_add.
import warp as wp

BLOCK = wp.constant(16)


@wp.kernel
def block_sums(x: wp.array(dtype=float), partial: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(x, shape=BLOCK, offset=i * BLOCK)
    s = wp.tile_sum(t)
    wp.tile_store(partial, s, offset=i)
    wp.tile_atomic_add(total, s)
