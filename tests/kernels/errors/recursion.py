# expect: 16:12: recursion is not supported in kernels: even -> odd -> even
import warp as wp


@wp.func
def even(n: int) -> bool:
    if n == 0:
        return True
    return odd(n - 1)


@wp.func
def odd(n: int) -> bool:
    if n == 0:
        return False
    return even(n - 1)
