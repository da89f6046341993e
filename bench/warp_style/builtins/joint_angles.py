# Joint angles from relative rotations with quat_to_axis_angle, in the tuple
# form and in the form with output arguments.
import warp as wp


@wp.kernel
def joint_angles(parent: wp.array(dtype=wp.quat), child: wp.array(dtype=wp.quat), angles: wp.array(dtype=float),
                 axes: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    rel = wp.mul(wp.quat_inverse(wp.normalize(parent[i] + wp.quat_identity())), wp.normalize(child[i] + wp.quat_identity()))
    axis, angle = wp.quat_to_axis_angle(rel)
    angles[i] = angle
    axes[i] = axis


@wp.kernel
def twist(q: wp.array(dtype=wp.quat), out: wp.array(dtype=float)):
    i = wp.tid()
    axis = wp.vec3(0.0, 0.0, 0.0)
    angle = float(0.0)
    wp.quat_to_axis_angle(wp.normalize(q[i] + wp.quat(0.0, 0.0, 0.0, 2.0)), axis, angle)
    out[i] = angle * axis[2]
