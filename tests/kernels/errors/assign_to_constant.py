# expect: 10:5: cannot assign to the module constant 'N'
import warp as wp

N = wp.constant(16)


@wp.kernel
def k(a: wp.array(dtype=int)):
    i = wp.tid()
    N = 3
    a[i] = N
