# expect: 8:30: 'transform' rotation q must be quat, got 'vec4'
import warp as wp


@wp.kernel
def k(out: wp.array(dtype=wp.transform)):
    p = wp.vec3(1.0, 2.0, 3.0)
    out[0] = wp.transform(p, wp.vec4(0.0, 0.0, 0.0, 1.0))
