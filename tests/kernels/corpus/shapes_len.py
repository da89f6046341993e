import warp as wp


@wp.kernel
def volume_mean(vol: wp.array3d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    ny = vol.shape[1]
    nz = vol.shape[2]
    total = float(0.0)
    for j in range(ny):
        for k in range(nz):
            total += vol[i, j, k]
    out[i] = total / float(ny * nz)


@wp.kernel
def fill_3d(vol: wp.array3d(dtype=float), value: float):
    i, j, k = wp.tid()
    vol[i, j, k] = value * float(i + j + k)


@wp.kernel
def reverse(src: wp.array(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid()
    n = len(src)
    dst[n - 1 - i] = src[i]


@wp.kernel
def checker_board(board: wp.array(dtype=int, ndim=2)):
    i, j = wp.tid()
    if i < board.shape[0] and j < board.shape[1]:
        board[i, j] = (i + j) % 2


@wp.kernel
def lengths(vs: wp.array1d(dtype=wp.vec4), out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = len(vs[i]) + len(out) * 0


@wp.kernel
def four_d(a: wp.array4d(dtype=float)):
    i, j, k, l = wp.tid()
    a[i, j, k, l] = float(a.shape[3] * l + k)
