# Rigid bodies: points and directions from body to world frame.
import warp as wp


@wp.kernel
def to_world(body_q: wp.array(dtype=wp.transform), local_p: wp.array(dtype=wp.vec3),
             local_d: wp.array(dtype=wp.vec3), world_p: wp.array(dtype=wp.vec3), world_d: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    q = body_q[i]
    rot = wp.normalize(wp.transform_get_rotation(q))
    X = wp.transform(wp.transform_get_translation(q), rot)
    world_p[i] = wp.transform_point(X, local_p[i])
    world_d[i] = wp.transform_vector(X, local_d[i])
