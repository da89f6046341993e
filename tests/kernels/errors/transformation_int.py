# expect: 7:14: transformation() needs float components, got 'vec3i' (pass float values or dtype=)
import warp as wp


@wp.kernel
def k(out: wp.array(dtype=wp.transform)):
    out[0] = wp.transformation(wp.vec3i(1, 2, 3))
