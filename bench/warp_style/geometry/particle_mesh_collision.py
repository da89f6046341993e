# plugins: mesh
# objects: mesh=box
# Warp's mesh example: particles pushed out of a mesh along the contact normal.
import warp as wp


@wp.kernel
def collide(mesh: wp.uint64, x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), margin: float, dt: float):
    tid = wp.tid()
    p = x[tid] - wp.vec3(1.0, 1.0, 1.0)
    vel = v[tid] - wp.vec3(1.0, 1.0, 1.0)
    xpred = p + vel * dt * 0.1
    query = wp.mesh_query_point_sign_normal(mesh, xpred, 2.0)
    if query.result:
        c = wp.mesh_eval_position(mesh, query.face, query.u, query.v)
        delta = xpred - c
        dist = wp.length(delta) * query.sign
        err = dist - margin * 0.1
        if err < 0.0:
            n = wp.normalize(delta) * query.sign
            xpred = xpred - n * err
    x[tid] = xpred
