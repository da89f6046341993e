# The 6x6 adjoint of a transform applied to spatial vectors.
import warp as wp


@wp.func
def adjoint(X: wp.transform):
    R = wp.quat_to_matrix(wp.transform_get_rotation(X))
    p = wp.transform_get_translation(X)
    S = wp.skew(p) * R
    return wp.spatial_adjoint(R, S)


@wp.kernel
def transform_twists(t: wp.array(dtype=wp.vec3), twist: wp.array(dtype=wp.spatial_vector),
                     out: wp.array(dtype=wp.spatial_vector)):
    i = wp.tid()
    X = wp.transform(t[i], wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), 0.3))
    out[i] = adjoint(X) * twist[i]


@wp.kernel
def outer(a: wp.array(dtype=wp.spatial_vector), out: wp.array(dtype=wp.spatial_matrix)):
    i = wp.tid()
    out[i] = wp.outer(a[i], a[(i + 1) % 64]) + wp.spatial_matrix() * 0.0
