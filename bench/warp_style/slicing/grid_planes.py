# A 3-D grid: one 2-D plane per thread (a[k] on a 3-D array), then rows of it.
import warp as wp


@wp.kernel
def plane_sums(g: wp.array3d(dtype=float), sums: wp.array(dtype=float)):
    k = wp.tid()
    if k < 8:
        plane = g[k]
        acc = float(0.0)
        for i in range(8):
            row = plane[i]
            for j in range(8):
                acc += row[j]
        sums[k] = acc


@wp.kernel
def scale_rows(g: wp.array2d(dtype=float), s: wp.array(dtype=float)):
    i, j = wp.tid()
    row = g[i]
    row[j] = row[j] * s[i]
