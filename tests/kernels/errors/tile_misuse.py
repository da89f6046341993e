# expect: 11:12: tile_zeros(): tiles are supported in kernels only in this version
# expect: 18:9: tile() gathers or scatters one value per thread of a block
# expect: 19:15: function 'scale': tiles cannot be passed to @wp.func functions
# expect: 20:13: len() does not take tiles
# expect: 21:22: tile_store(): the tile holds float32, the array int32
import warp as wp


@wp.func
def scale(x: float):
    return wp.tile_zeros(shape=4, dtype=float)


@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=int)):
    i = wp.tid()
    t = wp.tile_load(a, shape=4)
    u = wp.tile(a[i])
    v = scale(t)
    n = len(t)
    wp.tile_store(b, t)
