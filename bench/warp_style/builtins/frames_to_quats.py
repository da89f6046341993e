# Orientation from frames: quat_from_matrix of 3x3 frames built from two
# directions and of 4x4 poses, then the quaternion applied to points.
import warp as wp


@wp.func
def frame_of(forward: wp.vec3, up: wp.vec3):
    f = wp.normalize(forward + wp.vec3(0.0, 0.0, 1.5))
    s = wp.normalize(wp.cross(up + wp.vec3(0.0, 2.0, 0.0), f))
    u = wp.cross(f, s)
    return wp.mat33(s[0], u[0], f[0], s[1], u[1], f[1], s[2], u[2], f[2])


@wp.kernel
def orient(forward: wp.array(dtype=wp.vec3), up: wp.array(dtype=wp.vec3), points: wp.array(dtype=wp.vec3),
           q: wp.array(dtype=wp.quat), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    r = wp.quat_from_matrix(frame_of(forward[i], up[i]))
    q[i] = r
    out[i] = wp.quat_rotate(r, points[i])


@wp.kernel
def pose_rotation(poses: wp.array(dtype=wp.mat44), q: wp.array(dtype=wp.quat)):
    i = wp.tid()
    q[i] = wp.quat_from_matrix(poses[i] + wp.identity(n=4, dtype=float) * 2.0)
