# plugins: bvh
# objects: tree=soup_bvh
# Items of a BVH whose boxes overlap a box around each point.
import warp as wp


@wp.kernel
def overlap(tree: wp.uint64, centers: wp.array(dtype=wp.vec3), size: float, counts: wp.array(dtype=int), sums: wp.array(dtype=int)):
    i = wp.tid()
    c = centers[i] - wp.vec3(1.0, 1.0, 1.0)
    h = wp.vec3(size, size, size) * 0.25
    query = wp.bvh_query_aabb(tree, c - h, c + h)
    item = int(0)
    n = int(0)
    s = int(0)
    while wp.bvh_query_next(query, item):
        n += 1
        s += item
    counts[i] = n
    sums[i] = s
