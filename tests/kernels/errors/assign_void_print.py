# expect: 8:9: cannot assign the result of 'print', which returns nothing
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    r = print(a[i])
