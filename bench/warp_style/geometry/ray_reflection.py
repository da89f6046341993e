# plugins: mesh
# objects: mesh=sphere
# A ray reflected off a sphere mesh, then cast again: two bounces.
import warp as wp


@wp.kernel
def bounce(mesh: wp.uint64, origins: wp.array(dtype=wp.vec3), hits: wp.array(dtype=int), out_dir: wp.array(dtype=wp.vec3), travelled: wp.array(dtype=float)):
    i = wp.tid()
    ro = origins[i] * 2.0 + wp.vec3(0.0, 0.0, 0.5)
    rd = wp.normalize(wp.vec3(0.1, 0.05, 0.0) - ro)
    n = int(0)
    total = float(0.0)
    for k in range(2):
        q = wp.mesh_query_ray(mesh, ro, rd, 100.0)
        if q.result:
            n += 1
            total += q.t
            ro = ro + rd * q.t
            rd = rd - 2.0 * wp.dot(rd, q.normal) * q.normal
            ro = ro + rd * 1.0e-3
    hits[i] = n
    out_dir[i] = rd
    travelled[i] = total
