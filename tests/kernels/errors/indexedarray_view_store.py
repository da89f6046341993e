# expect: 9:5: an array view cannot be assigned to
# expect: 10:14: array of 2 dimensions indexed with 3 indexes: give at most 2
import warp as wp


@wp.kernel
def k(a: wp.indexedarray2d(dtype=float), b: wp.indexedarray2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = b[i]
    out[i] = a[i, 0, 1]
