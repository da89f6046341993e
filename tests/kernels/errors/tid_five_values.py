# expect: 7:5: tid() unpacks into 1 to 4 values, not 5
import warp as wp


@wp.kernel
def k(a: wp.array4d(dtype=float)):
    i, j, k2, l, m = wp.tid()
