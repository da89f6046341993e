# expect: 7:17: slice step cannot be zero: use a positive step
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    evens = a[::0]
    out[0] = evens[0]
