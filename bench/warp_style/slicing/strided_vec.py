# Every other component of a vector, reversed components, and slice assignment.
import warp as wp


@wp.kernel
def swizzle(v: wp.array(dtype=wp.vec4), even: wp.array(dtype=wp.vec2), rev: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    a = v[i]
    even[i] = a[::2]
    rev[i] = a[::-1]


@wp.kernel
def write_middle(v: wp.array(dtype=wp.vec4), s: wp.array(dtype=float)):
    i = wp.tid()
    a = v[i]
    a[1:3] = wp.vec2(s[i], -s[i])
    v[i] = a
