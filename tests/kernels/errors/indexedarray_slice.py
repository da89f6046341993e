# expect: 10:14: 'indexedarray(dtype=float32)' cannot be sliced: index its leading dimensions with integers
# expect: 11:19: 'indexedarray(dtype=float32, ndim=2)' cannot be sliced: index its leading dimensions with integers (x[i] is a view of the rest)
import warp as wp


@wp.kernel
def k(a: wp.indexedarray2d(dtype=float), b: wp.indexedarray(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    row = a[i]
    part = b[1:3]
    column = a[i, 0:2]
    out[i] = row[0]
