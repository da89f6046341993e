# expect: 8:12: both branches of a conditional expression must have one type, got 'float32' and 'int32'
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    a[i] = a[i] if i < 4 else n
