# expect: 11:17: no overload of 'curlnoise' matches the argument types (uint32, vec2, int32)
import warp as wp


@wp.kernel
def advect(points: wp.array(dtype=wp.vec2), octaves: int):
    # curlnoise's octaves is a uint32, as in Warp, which rejects an int here
    # too: pass wp.uint32(octaves).
    i = wp.tid()
    state = wp.rand_init(3)
    points[i] = wp.curlnoise(state, points[i], octaves)
