# expect: 11:9: lambda is not supported in kernels
# expect: 12:5: try statements are not supported in kernels
# expect: 16:9: list literals are not supported in kernels
# expect: 21:17: variadic parameters are not supported in kernels: **kwargs
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    f = lambda x: x + 1.0
    try:
        a[i] = f(a[i])
    finally:
        pass
    b = [0.0, 1.0][i]
    a[i] = b


@wp.func
def g(x: float, **kwargs) -> float:
    return x
