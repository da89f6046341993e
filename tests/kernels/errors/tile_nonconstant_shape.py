# expect: 9:31: tile_load(): a tile's shape must be integer constants
# expect: 10:33: tile_zeros(): a tile dimension must be 1 to 65536, got 0
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    t = wp.tile_load(a, shape=n)
    z = wp.tile_zeros(shape=(4, 0), dtype=float)
