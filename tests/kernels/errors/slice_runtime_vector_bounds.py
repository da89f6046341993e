# expect: 8:16: slice bounds of 'vec3' must be integer constants
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec2), n: int):
    v = a[0]
    out[0] = v[n : n + 2]
