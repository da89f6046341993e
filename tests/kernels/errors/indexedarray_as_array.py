# expect: 13:5: no overload of function 'total' matches the argument types (indexedarray(dtype=float32))
import warp as wp


@wp.func
def total(a: wp.array(dtype=float)) -> float:
    return a[0]


@wp.kernel
def k(a: wp.indexedarray(dtype=float)):
    i = wp.tid()
    total(a)
