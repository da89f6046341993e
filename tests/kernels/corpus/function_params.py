# Functions passed to functions (wp.Function parameters): one integrator, several right-hand sides.
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


@wp.func
def apply_twice(f: wp.Function, v: wp.vec3):
    return f(f(v))


@wp.func
def halve(v: wp.vec3):
    return v * 0.5


@wp.kernel
def step(x: wp.array(dtype=float), y: wp.array(dtype=float), z: wp.array(dtype=float), h: float):
    i = wp.tid()
    x[i] = rk2(decay, x[i], h)
    y[i] = rk2(growth, y[i], h)
    z[i] = rk2(wp.sin, z[i], h)


@wp.kernel
def shrink(v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    v[i] = apply_twice(halve, v[i]) + apply_twice(wp.normalize, v[i])
