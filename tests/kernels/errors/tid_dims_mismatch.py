# expect: 9:5: tid() is unpacked into 3 values here but 2 at line 7
import warp as wp


@wp.kernel
def k(a: wp.array2d(dtype=float)):
    i, j = wp.tid()
    a[i, j] = 0.0
    x, y, z = wp.tid()
