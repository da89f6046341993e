# expect: 8:5: cannot assign 'int32' to 'x', which is float32 (its type is fixed by its first assignment, line 7)
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    x = a[0]
    x = n
    a[0] = x
