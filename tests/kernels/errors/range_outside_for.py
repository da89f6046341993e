# expect: 8:9: range() is only supported as the iterable of a for loop
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=int)):
    i = wp.tid()
    r = range(10)
