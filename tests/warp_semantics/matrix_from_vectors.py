# matrix_from_cols / matrix_from_rows building non-square matrices (3x2, 2x3,
# 2x4), products and a gradient: tests/unit/test_warp_semantics.cpp holds
# warp-lang 1.19's values.
import warp as wp


@wp.kernel
def mfc(v3: wp.array(dtype=wp.vec3), v2: wp.array(dtype=wp.vec2), out: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    a = v3[i]
    b = v3[i] * 2.0 + wp.vec3(1.0, 0.0, -1.0)
    m32 = wp.matrix_from_cols(a, b)
    m23 = wp.matrix_from_rows(a, b)
    m24 = wp.matrix_from_cols(v2[i], v2[i] * 3.0, v2[i] + wp.vec2(1.0, 2.0), v2[i])
    p = m32 @ wp.vec2(1.0, 2.0)
    q = m23 @ a
    out[i * 4 + 0] = p[2] + q[1]
    out[i * 4 + 1] = m32[2, 1] - m23[1, 2]
    out[i * 4 + 2] = (m24 @ wp.vec4(1.0, 2.0, 3.0, 4.0))[1]
    out[i * 4 + 3] = m24[0, 2]
    wp.atomic_add(loss, 0, p[0] * q[0] + m24[1, 3] * 0.5 + (m23 @ b)[0])
