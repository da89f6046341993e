# warp-lang's results for mesh_kernels.py on geometry_inputs.py's meshes,
# points, rays and boxes, one "name value" line each; tests/tools/geometry_run
# prints the same lines from weft, and diff_geometry.py compares the two.
import os
import sys

try:
    import numpy as np
    import warp as wp
except ImportError:
    sys.exit(77)

sys.path.insert(0, os.path.dirname(__file__))
wp.config.quiet = True
import geometry_inputs as gi  # noqa: E402
import mesh_kernels as k  # noqa: E402

dev = "cpu"


def arr(values, dtype):
    return wp.array(np.array(values, dtype=np.float32 if dtype is wp.vec3 else np.int32), dtype=dtype, device=dev)


def report(name, value):
    print(name, repr(float(value)) if isinstance(value, float) else value)


def run_mesh(tag, points, indices):
    mesh = wp.Mesh(points=arr(points, wp.vec3), indices=arr(indices, wp.int32))
    n = 1000
    qp = arr(gi.query_points(n, 4.0), wp.vec3)
    faces = wp.zeros(n, dtype=int, device=dev)
    nearest = wp.zeros(n, dtype=wp.vec3, device=dev)
    dist = wp.zeros(n, dtype=float, device=dev)
    wp.launch(k.closest, dim=n, inputs=[mesh.id, qp, 0.75, faces, nearest, dist], device=dev)
    d = dist.numpy()
    found = d >= 0
    report(tag + ".closest.found", int(found.sum()))
    report(tag + ".closest.dist_sum", float(d[found].astype(np.float64).sum()))
    report(tag + ".closest.nearest_sum", float(nearest.numpy()[found].astype(np.float64).sum()))
    report(tag + ".closest.face_sum", int(faces.numpy()[found].sum()))

    signs = wp.zeros(n, dtype=float, device=dev)
    wp.launch(k.closest_sign, dim=n, inputs=[mesh.id, qp, 0.75, signs, dist], device=dev)
    sg = signs.numpy()
    report(tag + ".sign.inside", int((sg < 0).sum()))
    report(tag + ".sign.outside", int((sg > 0).sum()))
    report(tag + ".sign.dist_sum", float(dist.numpy()[sg != 0].astype(np.float64).sum()))

    wp.launch(k.closest_vote, dim=n, inputs=[mesh.id, qp, signs], device=dev)
    sg = signs.numpy()
    report(tag + ".vote.inside", int((sg < 0).sum()))
    report(tag + ".vote.outside", int((sg > 0).sum()))
    wp.launch(k.furthest, dim=n, inputs=[mesh.id, qp, dist], device=dev)
    fd = dist.numpy()
    report(tag + ".furthest.found", int((fd >= 0).sum()))
    report(tag + ".furthest.dist_sum", float(fd[fd >= 0].astype(np.float64).sum()))

    starts, dirs = gi.rays(n, 3.0)
    ts = wp.zeros(n, dtype=float, device=dev)
    normals = wp.zeros(n, dtype=wp.vec3, device=dev)
    signs = wp.zeros(n, dtype=float, device=dev)
    wp.launch(k.raycast, dim=n, inputs=[mesh.id, arr(starts, wp.vec3), arr(dirs, wp.vec3), faces, ts, normals, signs], device=dev)
    t = ts.numpy()
    hit = t >= 0
    report(tag + ".ray.hits", int(hit.sum()))
    report(tag + ".ray.t_sum", float(t[hit].astype(np.float64).sum()))
    report(tag + ".ray.face_sum", int(faces.numpy()[hit].sum()))
    report(tag + ".ray.normal_sum", float(normals.numpy()[hit].astype(np.float64).sum()))
    report(tag + ".ray.sign_positive", int((signs.numpy()[hit] > 0).sum()))

    lo, hi = gi.boxes(n, 4.0, 0.3)
    counts = wp.zeros(n, dtype=int, device=dev)
    sums = wp.zeros(n, dtype=int, device=dev)
    wp.launch(k.box_faces, dim=n, inputs=[mesh.id, arr(lo, wp.vec3), arr(hi, wp.vec3), counts, sums], device=dev)
    report(tag + ".aabb.count_sum", int(counts.numpy().sum()))
    report(tag + ".aabb.face_sum", int(sums.numpy().sum()))
    counts2 = wp.zeros(n, dtype=int, device=dev)
    wp.launch(k.box_faces_while, dim=n, inputs=[mesh.id, arr(lo, wp.vec3), arr(hi, wp.vec3), counts2], device=dev)
    report(tag + ".aabb_while.count_sum", int(counts2.numpy().sum()))
    total = wp.zeros(1, dtype=wp.vec3, device=dev)
    wp.launch(k.vertex_sum, dim=len(points), inputs=[mesh.id, len(points), total], device=dev)
    report(tag + ".vertex_sum", float(total.numpy().astype(np.float64).sum()))


for tag, (points, indices) in (("sphere", gi.sphere()), ("box", gi.box_mesh()), ("soup", gi.soup())):
    run_mesh(tag, points, indices)

# A BVH over the soup's triangle bounds.
points, indices = gi.soup()
p = np.array(points, dtype=np.float32)
tri = p[np.array(indices).reshape(-1, 3)]
bvh = wp.Bvh(wp.array(tri.min(axis=1), dtype=wp.vec3, device=dev), wp.array(tri.max(axis=1), dtype=wp.vec3, device=dev))
n = 1000
lo, hi = gi.boxes(n, 4.0, 0.3)
counts = wp.zeros(n, dtype=int, device=dev)
sums = wp.zeros(n, dtype=int, device=dev)
wp.launch(k.bvh_boxes, dim=n, inputs=[bvh.id, arr(lo, wp.vec3), arr(hi, wp.vec3), counts, sums], device=dev)
report("bvh.aabb.count_sum", int(counts.numpy().sum()))
report("bvh.aabb.index_sum", int(sums.numpy().sum()))
starts, dirs = gi.rays(n, 3.0)
wp.launch(k.bvh_rays, dim=n, inputs=[bvh.id, arr(starts, wp.vec3), arr(dirs, wp.vec3), counts, sums], device=dev)
report("bvh.ray.count_sum", int(counts.numpy().sum()))
report("bvh.ray.index_sum", int(sums.numpy().sum()))
