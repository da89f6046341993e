# expect: 7:27: 'transform' translation p must be vec3, got 'vec2'
import warp as wp


@wp.kernel
def k(out: wp.array(dtype=wp.transform)):
    out[0] = wp.transform(wp.vec2(1.0, 2.0), wp.quat(0.0, 0.0, 0.0, 1.0))
