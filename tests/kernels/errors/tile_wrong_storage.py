# expect: 8:39: tile_ones(): storage must be "register" or "shared"
# expect: 9:31: tile_load(): the shape has 1 dimensions, the array 2
import warp as wp


@wp.kernel
def k(a: wp.array2d(dtype=float)):
    t = wp.tile_ones(shape=8, storage="global")
    u = wp.tile_load(a, shape=8)
