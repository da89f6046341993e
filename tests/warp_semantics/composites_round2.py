# matrix_from_cols / matrix_from_rows (with gradients) and Warp's vector names
# for the other integers (vec3ui, vec2l): the kernel
# tests/unit/test_warp_semantics.cpp runs, with warp-lang 1.19's values.
import warp as wp


@wp.kernel
def build(a: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat33), u: wp.array(dtype=wp.vec3ui),
          l: wp.array(dtype=wp.vec2l), loss: wp.array(dtype=float)):
    i = wp.tid()
    c = wp.matrix_from_cols(a[i], a[i] * 2.0, wp.vec3(1.0, 0.0, 0.0))
    r = wp.matrix_from_rows(a[i], wp.vec3(0.0, 1.0, 0.0), a[i] * 3.0)
    m[i] = c * r
    u[i] = wp.vec3ui(wp.uint32(i), wp.uint32(7), wp.uint32(4000000000)) + u[i]
    l[i] = wp.vec2l(wp.int64(i) * wp.int64(10000000000), wp.int64(-5))
    wp.atomic_add(loss, 0, wp.trace(c * r) + wp.determinant(wp.matrix_from_cols(wp.vec2(a[i][0], 1.0), wp.vec2(2.0, a[i][1]))))
