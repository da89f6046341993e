# plugins: mesh
# objects: mesh=soup
# Closest points on a triangle soup (degenerate triangles included) within a radius.
import warp as wp


@wp.kernel
def closest(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), max_dist: float, out: wp.array(dtype=wp.vec3), dist: wp.array(dtype=float), faces: wp.array(dtype=int)):
    i = wp.tid()
    p = points[i] - wp.vec3(1.0, 1.0, 1.0)
    q = wp.mesh_query_point_no_sign(mesh, p, max_dist)
    if q.result:
        c = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
        out[i] = c
        dist[i] = wp.length(c - p)
        faces[i] = q.face
    else:
        dist[i] = -1.0
        faces[i] = -1
