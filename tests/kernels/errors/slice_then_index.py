# expect: 8:14: a slice of a vector or matrix cannot be indexed in the same expression; name it first
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    v = a[0]
    out[0] = v[1:][0]
