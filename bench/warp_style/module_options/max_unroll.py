# A module that caps loop unrolling; the loops are ordinary dot products.
import warp as wp

wp.set_module_options({"max_unroll": 2})

N = wp.constant(8)


@wp.kernel
def dots(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < 16:
        acc = float(0.0)
        for k in range(N):
            acc += a[i, k] * b[i, k]
        out[i] = acc
