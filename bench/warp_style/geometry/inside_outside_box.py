# plugins: mesh
# objects: mesh=box
# Which side of a closed box each point is on (the sign of the closest feature's normal).
import warp as wp


@wp.kernel
def classify(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), inside: wp.array(dtype=int), depth: wp.array(dtype=float)):
    i = wp.tid()
    p = points[i] - wp.vec3(1.0, 1.0, 0.8)
    q = wp.mesh_query_point_sign_normal(mesh, p, 10.0)
    if q.result:
        c = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
        depth[i] = q.sign * wp.length(c - p)
        if q.sign < 0.0:
            inside[i] = 1
        else:
            inside[i] = 0
