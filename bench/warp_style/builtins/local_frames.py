# Local frames and their inverses: inverse and inverse_approx of 2x2, 3x3 and
# 4x4 matrices built from the inputs (a singular one gives zeros, as in Warp).
import warp as wp


@wp.func
def frame(a: wp.vec3, b: wp.vec3):
    c = wp.cross(a, b)
    return wp.mat33(a[0], b[0], c[0], a[1], b[1], c[1], a[2], b[2], c[2])


@wp.kernel
def to_local(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), p: wp.array(dtype=wp.vec3),
             out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    m = frame(a[i], b[i] + wp.vec3(0.0, 1.0, 0.0))
    out[i] = wp.inverse(m) * p[i]


@wp.kernel
def solve2(m: wp.array(dtype=wp.mat22), rhs: wp.array(dtype=wp.vec2), x: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    x[i] = wp.inverse_approx(m[i] + wp.mat22(2.0, 0.0, 0.0, 2.0)) * rhs[i]


@wp.kernel
def unproject(t: wp.array(dtype=wp.mat44), q: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    inv = wp.inverse(t[i] + wp.identity(n=4, dtype=float) * 3.0)
    out[i] = wp.transform_point(inv, q[i])
