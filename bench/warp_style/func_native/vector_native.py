# Native snippets taking and returning Warp vector types.
import warp as wp


@wp.func_native("return wp::vec3(v[1], v[2], v[0]);")
def rotate_components(v: wp.vec3) -> wp.vec3: ...


@wp.func_native("return v[0] * v[0] + v[1] * v[1] + v[2] * v[2];")
def length_sq(v: wp.vec3) -> float: ...


@wp.kernel
def cycle(p: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.vec3), l: wp.array(dtype=float)):
    i = wp.tid()
    q[i] = rotate_components(p[i])
    l[i] = length_sq(p[i])
