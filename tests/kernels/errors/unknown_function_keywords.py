# expect: 8:12: unknown function 'foo'
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = wp.foo(x=1.0)
