# expect: 11:9: 'f' already names the function 'sin' (line 9): a local bound to a function is bound to one function
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), flag: int):
    i = wp.tid()
    if flag > 0:
        f = wp.sin
    else:
        f = wp.cos
    a[i] = f(a[i])
