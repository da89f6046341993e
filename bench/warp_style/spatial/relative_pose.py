# Relative pose of body b in the frame of body a, with the inverse transform.
import warp as wp


@wp.kernel
def relative(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), angle: wp.array(dtype=float),
             rel: wp.array(dtype=wp.transform), err: wp.array(dtype=float)):
    i = wp.tid()
    Xa = wp.transform(a[i], wp.quat_rpy(angle[i], 0.0, 0.0))
    Xb = wp.transform(b[i], wp.quat_rpy(0.0, angle[i], 0.0))
    Xab = wp.transform_multiply(wp.transform_inverse(Xa), Xb)
    rel[i] = Xab
    back = wp.transform_multiply(Xa, Xab)
    err[i] = wp.length(wp.transform_get_translation(back) - b[i])
