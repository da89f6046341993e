# expect: 8:9: 'float32' cannot be sliced: slices apply to arrays, vectors, matrices and quaternions
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    x = a[0]
    y = x[0:2]
    out[0] = y
