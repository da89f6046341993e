import warp as wp

TILE = wp.constant(8)


@wp.kernel
def matmul(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
    i, j = wp.tid()
    k_dim = a.shape[1]
    total = float(0.0)
    for k in range(k_dim):
        total += a[i, k] * b[k, j]
    c[i, j] = total


@wp.kernel
def matmul_blocked(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
    i, j = wp.tid()
    k_dim = a.shape[1]
    total = float(0.0)
    k0 = int(0)
    while k0 < k_dim:
        k_end = wp.min(k0 + TILE, k_dim)
        for k in range(k0, k_end):
            total += a[i, k] * b[k, j]
        k0 += TILE
    c[i, j] = total


@wp.kernel
def transpose_kernel(a: wp.array2d(dtype=float), at: wp.array2d(dtype=float)):
    i, j = wp.tid()
    at[j, i] = a[i, j]


@wp.kernel
def batched_matvec(mats: wp.array(dtype=wp.mat44), vecs: wp.array(dtype=wp.vec4), out: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    out[i] = mats[i] @ vecs[i]


@wp.kernel
def outer_products(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.mat33)):
    i = wp.tid()
    out[i] = wp.outer(a[i], b[i]) + wp.mat33(0.0)
