# Boundary rows of a 2-D field copied from the opposite side (periodic BCs),
# addressed with negative indices.
import warp as wp


@wp.kernel
def periodic_rows(f: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    up = f[i - 1, j]
    left = f[i, j - 1]
    out[i, j] = 0.5 * (up + left) + f[-1, -1] * 0.0 + f[i, -1] * 0.1


@wp.kernel
def last_vec(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    last = v[-1]
    out[i] = wp.dot(v[i], last) + last[-1]
