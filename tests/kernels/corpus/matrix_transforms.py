import warp as wp


@wp.kernel
def transform_points(points: wp.array(dtype=wp.vec3), xform: wp.mat44, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = points[i]
    h = xform * wp.vec4(p[0], p[1], p[2], 1.0)
    out[i] = wp.vec3(h[0], h[1], h[2]) / h[3]


@wp.kernel
def rotate_normals(normals: wp.array(dtype=wp.vec3), rot: wp.mat33, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    inv_t = wp.transpose(rot)
    n = inv_t * normals[i]
    out[i] = wp.normalize(n)


@wp.kernel
def determinants(mats: wp.array(dtype=wp.mat33), dets: wp.array(dtype=float)):
    i = wp.tid()
    m = mats[i]
    dets[i] = wp.determinant(m)


@wp.kernel
def blend_with_identity(mats: wp.array(dtype=wp.mat33), alpha: float):
    i = wp.tid()
    eye = wp.identity(n=3, dtype=wp.float32)
    mats[i] = eye * (1.0 - alpha) + mats[i] * alpha


@wp.kernel
def build_frames(tangents: wp.array(dtype=wp.vec3), normals: wp.array(dtype=wp.vec3), frames: wp.array(dtype=wp.mat33)):
    i = wp.tid()
    t = wp.normalize(tangents[i])
    n = wp.normalize(normals[i])
    b = wp.cross(n, t)
    m = wp.mat33(t[0], b[0], n[0], t[1], b[1], n[1], t[2], b[2], n[2])
    m[0, 0] = m[0, 0] + 0.0
    frames[i] = m


@wp.kernel
def rows_and_traces(mats: wp.array(dtype=wp.mat44), first_rows: wp.array(dtype=wp.vec4), traces: wp.array(dtype=float)):
    i = wp.tid()
    m = mats[i]
    first_rows[i] = m[0]
    traces[i] = wp.trace(m) + m[1, 1] * 0.0
    e4 = wp.identity(n=4, dtype=wp.float32)
    wp.expect_eq(wp.determinant(e4), 1.0)


@wp.kernel
def double_precision(mats: wp.array(dtype=wp.mat22d), vecs: wp.array(dtype=wp.vec2d)):
    i = wp.tid()
    eye = wp.identity(n=2, dtype=wp.float64)
    vecs[i] = (mats[i] + eye) * vecs[i]
