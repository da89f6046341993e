# expect: 18:5: 'make_scale()' is missing its argument 'factor'
# expect: 19:26: 'make_scale()' takes 2 argument(s), got 3
# expect: 20:21: 'make_scale()' has no parameter 'gain'
# expect: 21:21: 'make_scale()' got parameter 'factor' twice
# expect: 22:16: unpacking arguments of kernel factory 'make_scale()' is not supported
import warp as wp


def make_scale(factor: float, bias: float = 0.0):
    @wp.kernel
    def scale(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] * factor + bias

    return scale


a = make_scale()
b = make_scale(1.0, 2.0, 3.0)
c = make_scale(1.0, gain=2.0)
d = make_scale(1.0, factor=2.0)
e = make_scale(*[1.0])
