# plugins: mesh
# objects: mesh=soup
# Vertices and indices through the mesh accessors, and barycentric interpolation.
import warp as wp


@wp.kernel
def lookups(mesh: wp.uint64, faces: wp.array(dtype=int), weights: wp.array(dtype=wp.vec3), corner: wp.array(dtype=wp.vec3), index: wp.array(dtype=int), interp: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    f = (faces[i] * 37 + i) % 300
    corner[i] = wp.mesh_get_point(mesh, f * 3 + i % 3)
    index[i] = wp.mesh_get_index(mesh, f * 3 + 2)
    w = weights[i]
    s = w[0] + w[1] + w[2]
    interp[i] = wp.mesh_eval_position(mesh, f, w[0] / s, w[1] / s)
