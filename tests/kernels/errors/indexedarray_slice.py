# expect: 9:11: 'indexedarray(dtype=float32, ndim=2)' cannot be sliced or viewed: index all 2 of its dimensions with integers (x[i, j]), or slice the base array on the host
# expect: 10:12: 'indexedarray(dtype=float32)' cannot be sliced or viewed: index all 1 of its dimension with integers (x[i])
import warp as wp


@wp.kernel
def k(a: wp.indexedarray2d(dtype=float), b: wp.indexedarray(dtype=float)):
    i = wp.tid()
    row = a[i]
    part = b[1:3]
    row[0] = part[0]
