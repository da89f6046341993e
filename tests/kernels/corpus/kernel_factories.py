# Kernel factories: a plain function that defines kernels and functions and
# returns one, called at module level. Each call is an instance whose captured
# arguments are constants of the code it makes (Warp builds a kernel per call).
import warp as wp

OFFSET = 0.25


@wp.func
def square(x: float):
    return x * x


def make_scale(factor: float):
    """A kernel in a module of its own, specialized by a captured float."""

    @wp.kernel(module="unique")
    def scale(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i] * factor

    return scale


double = make_scale(2.0)
third = make_scale(1.0 / 3.0)
shifted = make_scale(factor=OFFSET + 1.0)


def make_add(dtype, bias=1):
    # The captured type annotates the parameters; a helper of the factory
    # is made with it.
    @wp.func
    def plus_bias(v: dtype):
        return v + dtype(bias)

    @wp.kernel
    def add(a: wp.array(dtype=dtype), b: wp.array(dtype=dtype), out: wp.array(dtype=dtype)):
        i = wp.tid()
        out[i] = plus_bias(a[i] + b[i])

    return add


add_f32 = make_add(wp.float32)
add_f64 = make_add(wp.float64, bias=3)
add_i32 = make_add(dtype=wp.int32, bias=-2)


def make_op(scale: float, fn):
    # A factory of a function; the function it applies is captured too.
    @wp.func
    def op(x: float):
        return fn(x) * scale + OFFSET

    return op


square_op = make_op(3.0, square)
sine_op = make_op(-0.5, wp.sin)


def make_offset(v: wp.vec3, times: int):
    @wp.kernel
    def offset(p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
        i = wp.tid()
        q = p[i]
        for _k in range(times):
            q = q + v
        out[i] = q

    return offset


offset_up = make_offset(wp.vec3(0.0, 1.0, 0.5), 3)


@wp.kernel
def apply_ops(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = square_op(x[i]) + sine_op(x[i])


def make_normalize(lo: float, hi: float):
    # Values the factory computes from its arguments, once per call.
    span = hi - lo
    inv = 1.0 / span

    @wp.kernel
    def normalize(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = (x[i] - lo) * inv

    return normalize


unit = make_normalize(0.25, 1.75)


@wp.func
def inc(x: int):
    return x + 1


def make_twice(op):
    # A factory of a function over a function: instances compose.
    @wp.func
    def twice(x: int):
        return op(op(x))

    return twice


add2 = make_twice(inc)
add4 = make_twice(add2)


@wp.kernel
def composed(n: wp.array(dtype=int)):
    i = wp.tid()
    n[i] = add4(n[i]) * 10 + add2(n[i])
