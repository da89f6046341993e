# expect: 8:12: no overload of operator * ('mul') matches the argument types (float32, int32)
import warp as wp


@wp.kernel
def scale_by_index(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * i
