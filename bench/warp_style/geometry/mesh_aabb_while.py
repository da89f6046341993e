# plugins: mesh
# objects: mesh=sphere
# The older while form of a mesh box query, reading each face's vertices.
import warp as wp


@wp.kernel
def touching(mesh: wp.uint64, centers: wp.array(dtype=wp.vec3), counts: wp.array(dtype=int), centroid_sum: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    c = centers[i] - wp.vec3(1.0, 1.0, 1.0)
    h = wp.vec3(0.2, 0.2, 0.2)
    query = wp.mesh_query_aabb(mesh, c - h, c + h)
    face = int(0)
    n = int(0)
    acc = wp.vec3(0.0, 0.0, 0.0)
    while wp.mesh_query_aabb_next(query, face):
        n += 1
        acc = acc + wp.mesh_eval_position(mesh, face, 1.0 / 3.0, 1.0 / 3.0)
    counts[i] = n
    centroid_sum[i] = acc
