# print(t): a tile's elements, rows on lines of their own, then its shape (Warp's format, less
# the storage, which weft's tiles do not have); one line per block.
import warp as wp


@wp.kernel
def show(x: wp.array(dtype=int), f: wp.array2d(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(x, shape=8)
    u = wp.tile_load(f, shape=(2, 3))
    if i == 0:
        print(t)
        print(u)
