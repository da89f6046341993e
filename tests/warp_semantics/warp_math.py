# Warp's warp.math helpers (@wp.func in Warp, bundled kernel-language source
# in weft) called as wp.<name>, forward and backward: the kernel
# tests/unit/test_warp_semantics.cpp runs, with warp-lang 1.19's values.
import warp as wp


@wp.kernel
def warp_math(q: wp.array(dtype=wp.quat), v: wp.array(dtype=wp.vec3), t: wp.array(dtype=wp.transform),
              scalars: wp.array(dtype=float), vecs: wp.array(dtype=wp.vec3), quats: wp.array(dtype=wp.quat),
              mats: wp.array(dtype=wp.mat44), twists: wp.array(dtype=wp.spatial_vector), loss: wp.array(dtype=float)):
    i = wp.tid()
    axis = wp.vec3(0.0, 0.0, 1.0)
    sv = wp.spatial_vector(1.0, -2.0, 3.0, 0.5, 0.25, -1.5)
    scalars[i * 6 + 0] = wp.norm_l1(v[i])
    scalars[i * 6 + 1] = wp.norm_l2(v[i])
    scalars[i * 6 + 2] = wp.norm_huber(v[i])
    scalars[i * 6 + 3] = wp.norm_pseudo_huber(v[i], 2.0)
    scalars[i * 6 + 4] = wp.quat_twist_angle(axis, q[i])
    scalars[i * 6 + 5] = wp.quat_twist_angle_signed(axis, q[i])
    vecs[i * 4 + 0] = wp.smooth_normalize(v[i])
    vecs[i * 4 + 1] = wp.quat_to_rpy(q[i])
    vecs[i * 4 + 2] = wp.quat_to_euler(q[i], 2, 1, 0)
    vecs[i * 4 + 3] = wp.velocity_at_point(sv, v[i])
    quats[i * 2 + 0] = wp.quat_twist(axis, q[i])
    quats[i * 2 + 1] = wp.quat_from_euler(v[i], 0, 1, 2)
    m = wp.transform_compose(v[i], q[i], wp.vec3(1.0, 2.0, 3.0))
    mats[i * 2 + 0] = m
    mats[i * 2 + 1] = wp.transform_to_matrix(t[i])
    t2 = wp.transform_from_matrix(wp.transform_to_matrix(t[i]))
    p, r, s = wp.transform_decompose(m)
    twists[i * 2 + 0] = wp.transform_twist(t[i], sv)
    twists[i * 2 + 1] = wp.transform_wrench(t[i], sv)
    l = wp.norm_l1(v[i]) + wp.norm_huber(v[i], 0.5) + wp.quat_to_rpy(q[i])[1] + wp.quat_from_euler(v[i], 2, 0, 1)[3]
    l += wp.dot(p, s) + r[2] + wp.transform_get_translation(t2)[0] + wp.transform_twist(t[i], sv)[4]
    l += wp.smooth_normalize(v[i])[0] + wp.quat_twist(axis, q[i])[2]
    wp.atomic_add(loss, 0, l)
