# Keyframe interpolation of poses: lerp the translation, slerp the rotation.
import warp as wp


@wp.func
def blend(a: wp.transform, b: wp.transform, t: float):
    p = wp.lerp(wp.transform_get_translation(a), wp.transform_get_translation(b), t)
    q = wp.quat_slerp(wp.transform_get_rotation(a), wp.transform_get_rotation(b), t)
    return wp.transform(p, q)


@wp.kernel
def animate(p0: wp.array(dtype=wp.vec3), p1: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.transform)):
    i = wp.tid()
    a = wp.transform(p0[i], wp.quat_identity())
    b = wp.transform(p1[i], wp.quat_from_axis_angle(wp.vec3(0.0, 1.0, 0.0), 1.0))
    out[i] = blend(a, b, float(i) / 63.0)
