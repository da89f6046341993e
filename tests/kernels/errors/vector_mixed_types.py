# expect: 8:9: all values given when constructing a vector must have the same type, got 'float32' and 'int32'
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    v = wp.vector(a[i], 2, 3)
