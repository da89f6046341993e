# expect: 8:14: index must be an integer, got 'float32'
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), t: float):
    i = wp.tid()
    a[i] = a[t * 2.0]
