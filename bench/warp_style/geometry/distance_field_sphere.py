# plugins: mesh
# objects: mesh=sphere
# An unsigned distance field sampled from a mesh, and its value at a far cutoff.
import warp as wp


@wp.func
def udf(mesh: wp.uint64, p: wp.vec3, cutoff: float):
    q = wp.mesh_query_point_no_sign(mesh, p, cutoff)
    d = cutoff
    if q.result:
        d = wp.length(wp.mesh_eval_position(mesh, q.face, q.u, q.v) - p)
    return d


@wp.kernel
def sample(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), field: wp.array(dtype=float)):
    i = wp.tid()
    field[i] = udf(mesh, points[i] - wp.vec3(0.5, 0.5, 0.5), 0.6)
