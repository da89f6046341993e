# expect: 6:10: 'wp.indexedarray' is not supported in kernels: pass the array and its index array and index through it (a[idx[i]])
import warp as wp


@wp.kernel
def k(a: wp.indexedarray(dtype=float)):
    i = wp.tid()
    a[i] = 1.0
