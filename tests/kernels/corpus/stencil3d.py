# Guarded stencils over N-D launches: each row's passing range runs without the
# test, and with the launch's arrays disjoint, without per-row overlap tests.
import warp as wp


@wp.kernel
def diffuse3d(u: wp.array3d(dtype=float), out: wp.array3d(dtype=float), k: float):
    i, j, l = wp.tid()
    if i > 0 and j > 0 and l > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1 and l < u.shape[2] - 1:
        out[i, j, l] = u[i, j, l] + k * (
            u[i - 1, j, l] + u[i + 1, j, l] + u[i, j - 1, l] + u[i, j + 1, l] + u[i, j, l - 1] + u[i, j, l + 1] - 6.0 * u[i, j, l]
        )


@wp.kernel
def blend_rows(a: wp.array2d(dtype=wp.vec3), b: wp.array2d(dtype=wp.vec3), out: wp.array2d(dtype=wp.vec3), t: float):
    i, j = wp.tid()
    if j >= 1 and j < a.shape[1] - 1:
        out[i, j] = (1.0 - t) * a[i, j - 1] + t * b[i, j + 1]


@wp.kernel
def shell_sums(u: wp.array3d(dtype=int), sums: wp.array(dtype=int)):
    i, j, l = wp.tid()
    if l > 1 and l <= u.shape[2] - 2:
        wp.atomic_add(sums, i, u[i, j, l] * (l - 1))
