# expect: 8:11: slice step cannot be zero: use a positive step
import warp as wp


@wp.kernel
def k(out: wp.array(dtype=wp.vec3)):
    v = out[0]
    r = v[1::0]
    out[1] = wp.vec3(r[0], 0.0, 0.0)
