# expect: 13:5: cannot unpack 2 values into 3 names
import warp as wp


@wp.func
def min_max(a: float, b: float):
    return wp.min(a, b), wp.max(a, b)


@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    lo, hi, mid = min_max(a[i], b[i])
