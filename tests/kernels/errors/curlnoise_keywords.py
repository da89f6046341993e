# expect: 9:45: no parameter list of 'curlnoise' takes these arguments (keyword 'scale')
# expect: 10:58: no parameter list of 'curlnoise' takes these arguments (keyword 'octaves')
# expect: 11:14: octaves
import warp as wp


@wp.kernel
def k(out: wp.array(dtype=wp.vec3)):
    s = wp.rand_init(1)
    out[0] = wp.curlnoise(s, wp.vec3(0.5), scale=2.0)
    out[1] = wp.curlnoise(s, wp.vec3(0.5), wp.uint32(2), octaves=wp.uint32(2))
    out[2] = wp.curlnoise(s, wp.vec3(0.5), octaves=2)
