# Array views inside kernels, as Warp users write them: a row of a 2-D array
# (a[i]) is a 1-D array sharing its memory, passed to per-row helpers; columns
# (a[:, j]) and slices with run-time bounds (a[lo:hi], a[::2], a[::-1]) are
# strided views; writes and atomics through a view land in the parent array.
import warp as wp


@wp.func
def row_sum(row: wp.array(dtype=float)) -> float:
    s = float(0.0)
    for j in range(row.shape[0]):
        s += row[j]
    return s


@wp.func
def scale_row(row: wp.array(dtype=float), k: float):
    for j in range(len(row)):
        row[j] = row[j] * k


@wp.kernel
def normalize_rows(a: wp.array2d(dtype=float), sums: wp.array(dtype=float)):
    i = wp.tid()
    if i < a.shape[0]:
        row = a[i]
        s = row_sum(row)
        sums[i] = s
        scale_row(row, 1.0 / s)
        wp.atomic_add(row, 0, 1.0)
        row[1] += 2.0
        a[i][2] = a[i][3] + float(len(row))


@wp.kernel
def scale_cells(a: wp.array2d(dtype=wp.vec3), w: wp.array(dtype=float)):
    i, j = wp.tid()
    row = a[i]
    v = row[j]
    row[j] = v * w[j]


@wp.kernel
def columns(lo: int, hi: int, a: wp.array2d(dtype=float), out: wp.array(dtype=float), parts: wp.array2d(dtype=float)):
    j = wp.tid()
    if j < a.shape[1]:
        col = a[:, j]
        out[j] = col[3] + float(col.shape[0]) + row_sum(col)
        part = parts[j, lo:hi]
        for k in range(part.shape[0]):
            part[k] = part[k] + float(k)
        tail = a[j, -4:]
        out[j + 16] = tail[0] + float(len(tail))


@wp.kernel
def strided(
    lo: int, hi: int, a: wp.array(dtype=float), out: wp.array(dtype=float), flipped: wp.array(dtype=float),
    w: wp.array(dtype=float),
):
    i = wp.tid()
    evens = a[::2]
    odds = a[1::2]
    window = a[lo:hi]
    rev = a[::-1]
    mid = a[1:4]
    if i < evens.shape[0]:
        out[i] = evens[i] - odds[i] + float(window.shape[0]) + mid[i % 3]
    flipped[i] = rev[i] + float(len(rev))
    scaled = w[lo:hi:2]
    if i < len(scaled):
        scaled[i] = scaled[i] * 2.0 + window[i]


@wp.kernel
def blocks3d(v: wp.array3d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    plane = v[i % 8]
    line = plane[j % 8]
    column = v[i % 8, :, j % 8]
    out[i, j] = line[1] + column[2] + float(plane.shape[1])
