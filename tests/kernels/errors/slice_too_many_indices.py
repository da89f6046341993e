# expect: 8:9: 'vec3' cannot be indexed with 2 indices; give one index or slice
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    v = a[0]
    s = v[0:2, 1]
    out[0] = s[0]
