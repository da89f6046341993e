# expect: 8:11: slice of 'vec3' selects no components
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    v = a[0]
    s = v[2:1]
    out[0] = s[0]
