# Integer tiles: counting, clamping with tile_map, bit masks and conversions with tile_astype.
import warp as wp

BLOCK = wp.constant(8)


@wp.func
def clamp3(x: int):
    return wp.clamp(x, 1, 5)


@wp.kernel
def ints(a: wp.array(dtype=int), clamped: wp.array(dtype=int), halves: wp.array(dtype=float),
         masked: wp.array(dtype=int)):
    i = wp.tid()
    t = wp.tile_load(a, shape=BLOCK, offset=i * BLOCK)
    wp.tile_store(clamped, wp.tile_map(clamp3, t), offset=i * BLOCK)
    wp.tile_store(halves, wp.tile_astype(t, dtype=float) * 0.5, offset=i * BLOCK)
    wp.tile_store(masked, wp.tile_map(wp.bit_and, t, 3), offset=i * BLOCK)
