# plugins: mesh
# objects: mesh=sphere
# Rays from each point toward the origin against a UV sphere: hit distance and normal.
import warp as wp


@wp.kernel
def cast(mesh: wp.uint64, origins: wp.array(dtype=wp.vec3), t: wp.array(dtype=float), normals: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    ro = origins[i] * 2.0
    rd = wp.normalize(-ro)
    q = wp.mesh_query_ray(mesh, ro, rd, 100.0)
    if q.result:
        t[i] = q.t
        normals[i] = q.normal
    else:
        t[i] = -1.0
