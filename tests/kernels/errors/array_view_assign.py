# expect: 7:5: an array view cannot be assigned to: store its elements (row[j] = ...) in a loop
import warp as wp


@wp.kernel
def k(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    a[0] = b[1]
