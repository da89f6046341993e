# expect: 8:19: name 'undefined_thing' is not defined
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + undefined_thing
