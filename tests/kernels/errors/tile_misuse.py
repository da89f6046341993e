# expect: 9:10: wp.tile[...] takes a dtype and 1 or 2 dimensions
# expect: 16:9: tile() gathers or scatters one value per thread of a block
# expect: 18:13: len() does not take tiles
# expect: 19:22: tile_store(): the tile holds float32, the array int32
import warp as wp


@wp.func
def f(t: wp.tile[float]):
    return t


@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=int)):
    i = wp.tid()
    u = wp.tile(a[i])
    t = wp.tile_load(a, shape=4)
    n = len(t)
    wp.tile_store(b, t)
