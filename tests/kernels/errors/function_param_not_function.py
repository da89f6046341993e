# expect: 15:12: no overload of function 'rk2' matches the argument types (float literal, float32, float32)
import warp as wp


@wp.func
def rk2(f: wp.Function, x: float, h: float):
    k1 = f(x)
    k2 = f(x + 0.5 * h * k1)
    return x + h * k2


@wp.kernel
def step(x: wp.array(dtype=float), h: float):
    i = wp.tid()
    x[i] = rk2(0.5, x[i], h)
