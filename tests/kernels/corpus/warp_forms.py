# Forms Warp 1.19 accepts that weft must too: `-> None` on a kernel, an empty
# struct parameter, negative indices (from the end), C-style % beside a flooring //.
import warp as wp


@wp.struct
class Tag:
    pass


@wp.kernel
def last_minus_first(a: wp.array(dtype=float), tag: Tag, out: wp.array(dtype=float)) -> None:
    i = wp.tid()
    out[i] = a[-1 - i] - a[i]


@wp.kernel
def remainders(x: wp.array(dtype=int), r: wp.array2d(dtype=int)):
    i = wp.tid()
    r[i, 0] = x[i] % 3
    r[i, -1] = x[i] // 3
