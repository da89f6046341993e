# expect: 13:9: cannot store 'vec3' into an element of type 'float32'
import warp as wp


def make_scale(factor):
    @wp.func
    def scaled(x: float):
        return x * factor

    @wp.kernel
    def scale(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = scaled(x[i])

    return scale


ok = make_scale(2.0)
bad = make_scale(wp.vec3(1.0, 2.0, 3.0))
