# expect: 4:19: 'transform' constant rotation q must be quat, got 'vec4'
import warp as wp

BAD = wp.constant(wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.vec4(0.0, 0.0, 0.0, 1.0)))


@wp.kernel
def k(out: wp.array(dtype=wp.transform)):
    out[0] = BAD
