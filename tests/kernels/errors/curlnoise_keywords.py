# expect: 9:44: no parameter list of 'curlnoise' takes these arguments (keyword 'scale'): curlnoise(state, xy, octaves=wp.uint32(1), lacunarity=2.0, gain=0.5); curlnoise(state, xyz, octaves=wp.uint32(1), lacunarity=2.0, gain=0.5); curlnoise(state, xyzt, octaves=wp.uint32(1), lacunarity=2.0, gain=0.5)
# expect: 10:58: no parameter list of 'curlnoise' takes these arguments (keyword 'octaves')
import warp as wp


@wp.kernel
def k(out: wp.array(dtype=wp.vec3)):
    s = wp.rand_init(1)
    out[0] = wp.curlnoise(s, wp.vec3(0.5), scale=2.0)
    out[1] = wp.curlnoise(s, wp.vec3(0.5), wp.uint32(2), octaves=wp.uint32(2))
