import warp as wp


@wp.kernel
def laplacian(u: wp.array2d(dtype=float), out: wp.array2d(dtype=float), h: float):
    i, j = wp.tid()
    nx = u.shape[0]
    ny = u.shape[1]
    if i == 0 or j == 0 or i == nx - 1 or j == ny - 1:
        out[i, j] = 0.0
        return
    center = u[i, j]
    lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * center
    out[i, j] = lap / (h * h)


@wp.kernel
def jacobi_step(phi: wp.array2d(dtype=float), rhs: wp.array2d(dtype=float), phi_next: wp.array2d(dtype=float)):
    i, j = wp.tid()
    nx = phi.shape[0]
    ny = phi.shape[1]
    im = wp.max(i - 1, 0)
    ip = wp.min(i + 1, nx - 1)
    jm = wp.max(j - 1, 0)
    jp = wp.min(j + 1, ny - 1)
    phi_next[i, j] = 0.25 * (phi[im, j] + phi[ip, j] + phi[i, jm] + phi[i, jp] - rhs[i, j])


@wp.kernel
def heat_step(t: wp.array2d(dtype=float), t_next: wp.array2d(dtype=float), alpha: float, dt: float):
    i, j = wp.tid()
    if i < 1 or j < 1 or i >= t.shape[0] - 1 or j >= t.shape[1] - 1:
        t_next[i, j] = t[i, j]
    else:
        d2x = t[i + 1, j] - 2.0 * t[i, j] + t[i - 1, j]
        d2y = t[i, j + 1] - 2.0 * t[i, j] + t[i, j - 1]
        t_next[i, j] = t[i, j] + alpha * dt * (d2x + d2y)
