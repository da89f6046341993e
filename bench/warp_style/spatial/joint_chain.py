# Forward kinematics of a small chain: compose parent and joint transforms.
import warp as wp


@wp.func
def joint_tf(angle: float, offset: wp.vec3):
    return wp.transform(offset, wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), angle))


@wp.kernel
def forward_kinematics(angles: wp.array(dtype=float), out_pos: wp.array(dtype=wp.vec3), out_q: wp.array(dtype=wp.transform)):
    i = wp.tid()
    X = wp.transform_identity()
    for k in range(4):
        X = wp.transform_multiply(X, joint_tf(angles[(i + k) % 64], wp.vec3(0.5, 0.0, 0.0)))
    out_pos[i] = wp.transform_get_translation(X)
    out_q[i] = X
