# expect: 7:14: no overload of 'transform_point' matches the argument types (transform, vec4)
import warp as wp


@wp.kernel
def k(t: wp.transform, out: wp.array(dtype=wp.vec3)):
    out[0] = wp.transform_point(t, wp.vec4(1.0, 2.0, 3.0, 1.0))
