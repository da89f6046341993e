# expect: 9:12: 'T' is a module-level tuple: kernels read it inside wp.static(), as Warp does
import warp as wp

T = (1.0, 2.0)


@wp.kernel
def k(a: wp.array(dtype=float)):
    a[0] = T[1]
