# Matrix-vector product over rows taken as a[i, :] views.
import warp as wp


@wp.kernel
def matvec(a: wp.array2d(dtype=float), x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if i < 16:
        row = a[i, :]
        acc = float(0.0)
        for j in range(16):
            acc += row[j] * x[j]
        y[i] = acc


@wp.kernel
def column_sums(a: wp.array2d(dtype=float), s: wp.array(dtype=float)):
    j = wp.tid()
    if j < 16:
        col = a[:, j]
        acc = float(0.0)
        for i in range(16):
            acc += col[i]
        s[j] = acc
