# expect: 13:9: cannot assign the result of 'accumulate', which returns nothing
import warp as wp


@wp.func
def accumulate(total: wp.array(dtype=float), value: float):
    wp.atomic_add(total, 0, value)


@wp.kernel
def k(a: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    r = accumulate(total, a[i])
