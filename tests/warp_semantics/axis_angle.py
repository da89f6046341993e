# quat_to_axis_angle in both of Warp's forms, with gradients: the kernel
# tests/unit/test_warp_semantics.cpp runs, with warp-lang 1.19's values.
import warp as wp


@wp.kernel
def axis_angle(q: wp.array(dtype=wp.quat), axes: wp.array(dtype=wp.vec3), angles: wp.array(dtype=float),
               loss: wp.array(dtype=float)):
    i = wp.tid()
    axis, angle = wp.quat_to_axis_angle(q[i])
    axes[i] = axis
    angles[i] = angle
    a2 = wp.vec3()
    an2 = float(0.0)
    wp.quat_to_axis_angle(q[i] * 2.0, a2, an2)
    wp.atomic_add(loss, 0, angle * 2.0 + axis[0] - 3.0 * axis[2] + an2 + a2[1])
