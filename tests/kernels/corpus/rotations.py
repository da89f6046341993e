# Rotations built from angles and turned into matrices: quat_rpy, quat_identity, quat_to_matrix, skew.
import warp as wp


@wp.kernel
def orient(angles: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat), r: wp.array(dtype=wp.mat33),
           p: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    a = angles[i]
    rot = wp.quat_rpy(a[0], a[1], a[2])
    q[i] = rot * wp.quat_identity()
    R = wp.quat_to_matrix(rot)
    r[i] = R
    p[i] = R * p[i] - wp.quat_rotate(rot, p[i]) + wp.skew(a) * p[i]
    half = wp.quat_slerp(wp.quat_identity(), rot, 0.5)
    q[i] = q[i] + wp.quat_slerp(rot, half * half, float(i) / 64.0)


@wp.kernel
def orient_d(angles: wp.array(dtype=wp.vec3d), r: wp.array(dtype=wp.mat33d)):
    i = wp.tid()
    a = angles[i]
    rot = wp.quat_rpy(a[0], a[1], a[2]) * wp.quat_identity(dtype=wp.float64)
    r[i] = wp.quat_to_matrix(rot) + wp.skew(a)
