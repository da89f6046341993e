# expect: 6:10: kernel parameter 'a': wp.ref[T] is a @wp.func parameter type only
import warp as wp


@wp.kernel
def k(a: wp.ref[float], x: wp.array(dtype=float)):
    i = wp.tid()
