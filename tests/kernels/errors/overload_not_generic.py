# expect: 10:13: wp.overload: kernel 'k' is not generic
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()


wp.overload(k, [wp.array(dtype=float)])
