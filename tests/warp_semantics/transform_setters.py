# Warp's in-place transform setters, with gradients: the kernel
# tests/unit/test_warp_semantics.cpp runs, with warp-lang 1.19's values.
import warp as wp


@wp.kernel
def setters(t: wp.array(dtype=wp.transform), p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.transform),
            loss: wp.array(dtype=float)):
    i = wp.tid()
    x = t[i]
    wp.transform_set_translation(x, p[i] * 2.0)
    out[2 * i] = x
    wp.transform_set_rotation(x, t[i].q * 3.0)
    out[2 * i + 1] = x
    z = wp.transform_point(x, p[i]) + wp.transform_point(t[i], wp.vec3(1.0, 2.0, 3.0))
    wp.atomic_add(loss, 0, z[0] + 2.0 * z[1] - z[2])
