# A generic integrator that takes the right-hand side as a function argument.
import warp as wp


@wp.func
def decay(x: float):
    return -0.5 * x


@wp.func
def growth(x: float):
    return 0.1 * x * (1.0 - x)


@wp.func
def rk2(f: wp.Function, x: float, h: float):
    k1 = f(x)
    k2 = f(x + 0.5 * h * k1)
    return x + h * k2


@wp.kernel
def step(x: wp.array(dtype=float), y: wp.array(dtype=float), h: float):
    i = wp.tid()
    x[i] = rk2(decay, x[i], h)
    y[i] = rk2(growth, y[i], h)
