# Vectors unpacked into constructors and function calls with *v.
import warp as wp


@wp.func
def rgb_to_luma(r: float, g: float, b: float):
    return 0.299 * r + 0.587 * g + 0.114 * b


@wp.kernel
def luma(c: wp.array(dtype=wp.vec3), y: wp.array(dtype=float), c4: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    col = c[i]
    y[i] = rgb_to_luma(*col)
    c4[i] = wp.vec4(*col, 1.0)


@wp.kernel
def swap_xy(p: wp.array(dtype=wp.vec2), q: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    v = wp.vec2(*p[i])
    q[i] = wp.vec2(v[1], v[0])
