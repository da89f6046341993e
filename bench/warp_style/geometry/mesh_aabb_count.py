# plugins: mesh
# objects: mesh=soup
# Faces whose bounds overlap a box around each point: count and index sum (order free).
import warp as wp


@wp.kernel
def overlap(mesh: wp.uint64, centers: wp.array(dtype=wp.vec3), size: float, counts: wp.array(dtype=int), sums: wp.array(dtype=int)):
    i = wp.tid()
    c = centers[i] - wp.vec3(1.0, 1.0, 1.0)
    h = wp.vec3(size, size, size) * 0.3
    n = int(0)
    s = int(0)
    for f in wp.mesh_query_aabb(mesh, c - h, c + h):
        n += 1
        s += f
    counts[i] = n
    sums[i] = s
