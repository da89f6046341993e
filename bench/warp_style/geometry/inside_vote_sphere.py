# plugins: mesh
# objects: mesh=sphere
# mesh_query_point's inside test (three axis rays vote) and the furthest point, for points around a sphere.
import warp as wp


@wp.kernel
def classify(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), sdf: wp.array(dtype=float), far: wp.array(dtype=float)):
    i = wp.tid()
    p = points[i] - wp.vec3(1.0, 1.0, 1.0)
    q = wp.mesh_query_point(mesh, p, 5.0)
    if q.result:
        c = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
        sdf[i] = q.sign * wp.length(c - p)
    f = wp.mesh_query_furthest_point_no_sign(mesh, p, 0.0)
    if f.result:
        far[i] = wp.length(wp.mesh_eval_position(mesh, f.face, f.u, f.v) - p)
