# Mesh and BVH queries as Warp's examples write them (raycast, closest point,
# box queries). Run unedited in weft (with the mesh and bvh plugins) and in
# warp-lang (warp_side_mesh.py).
import warp as wp


@wp.kernel
def closest(
    mesh: wp.uint64,
    points: wp.array(dtype=wp.vec3),
    max_dist: float,
    faces: wp.array(dtype=int),
    nearest: wp.array(dtype=wp.vec3),
    dist: wp.array(dtype=float),
):
    tid = wp.tid()
    p = points[tid]
    q = wp.mesh_query_point_no_sign(mesh, p, max_dist)
    if q.result:
        c = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
        faces[tid] = q.face
        nearest[tid] = c
        dist[tid] = wp.length(c - p)
    else:
        faces[tid] = -1
        dist[tid] = -1.0


@wp.kernel
def raycast(
    mesh: wp.uint64,
    starts: wp.array(dtype=wp.vec3),
    dirs: wp.array(dtype=wp.vec3),
    faces: wp.array(dtype=int),
    ts: wp.array(dtype=float),
    normals: wp.array(dtype=wp.vec3),
    signs: wp.array(dtype=float),
):
    tid = wp.tid()
    query = wp.mesh_query_ray(mesh, starts[tid], dirs[tid], 1.0e6)
    if query.result:
        faces[tid] = query.face
        ts[tid] = query.t
        normals[tid] = query.normal
        signs[tid] = query.sign
        # the hit point two ways: along the ray, and from the barycentrics
        hit = wp.mesh_eval_position(mesh, query.face, query.u, query.v)
        ts[tid] = ts[tid] + 0.0 * wp.length(hit)
    else:
        faces[tid] = -1
        ts[tid] = -1.0


@wp.kernel
def box_faces(
    mesh: wp.uint64,
    lowers: wp.array(dtype=wp.vec3),
    uppers: wp.array(dtype=wp.vec3),
    counts: wp.array(dtype=int),
    face_sums: wp.array(dtype=int),
):
    tid = wp.tid()
    n = int(0)
    s = int(0)
    for f in wp.mesh_query_aabb(mesh, lowers[tid], uppers[tid]):
        n += 1
        s += f
    counts[tid] = n
    face_sums[tid] = s


@wp.kernel
def box_faces_while(
    mesh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3), counts: wp.array(dtype=int)
):
    tid = wp.tid()
    query = wp.mesh_query_aabb(mesh, lowers[tid], uppers[tid])
    face = int(0)
    n = int(0)
    while wp.mesh_query_aabb_next(query, face):
        v = wp.mesh_get_index(mesh, face * 3)
        if v >= 0:
            n += 1
    counts[tid] = n


@wp.kernel
def vertex_sum(mesh: wp.uint64, count: int, out: wp.array(dtype=wp.vec3)):
    tid = wp.tid()
    if tid < count:
        wp.atomic_add(out, 0, wp.mesh_get_point(mesh, tid))


@wp.kernel
def bvh_boxes(
    bvh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3), counts: wp.array(dtype=int), sums: wp.array(dtype=int)
):
    tid = wp.tid()
    query = wp.bvh_query_aabb(bvh, lowers[tid], uppers[tid])
    i = int(0)
    n = int(0)
    s = int(0)
    # warp-lang 1.19 iterates hash grid and mesh box queries with `for`, BVH queries with bvh_query_next
    while wp.bvh_query_next(query, i):
        n += 1
        s += i
    counts[tid] = n
    sums[tid] = s


@wp.kernel
def bvh_rays(
    bvh: wp.uint64, starts: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3), counts: wp.array(dtype=int), sums: wp.array(dtype=int)
):
    tid = wp.tid()
    query = wp.bvh_query_ray(bvh, starts[tid], dirs[tid])
    i = int(0)
    n = int(0)
    s = int(0)
    while wp.bvh_query_next(query, i):
        n += 1
        s += i
    counts[tid] = n
    sums[tid] = s


@wp.kernel
def closest_sign(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), max_dist: float, signs: wp.array(dtype=float), dist: wp.array(dtype=float)):
    # Warp's example_mesh: the side of the surface a particle is on
    tid = wp.tid()
    p = points[tid]
    query = wp.mesh_query_point_sign_normal(mesh, p, max_dist)
    if query.result:
        c = wp.mesh_eval_position(mesh, query.face, query.u, query.v)
        signs[tid] = query.sign
        dist[tid] = wp.length(c - p)
    else:
        signs[tid] = 0.0
        dist[tid] = -1.0


@wp.kernel
def furthest(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), dist: wp.array(dtype=float)):
    tid = wp.tid()
    p = points[tid]
    q = wp.mesh_query_furthest_point_no_sign(mesh, p, 0.1)
    if q.result:
        dist[tid] = wp.length(wp.mesh_eval_position(mesh, q.face, q.u, q.v) - p)
    else:
        dist[tid] = -1.0


@wp.kernel
def closest_vote(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), signs: wp.array(dtype=float)):
    tid = wp.tid()
    q = wp.mesh_query_point(mesh, points[tid], 10.0)
    if q.result:
        signs[tid] = q.sign
    else:
        signs[tid] = 0.0
