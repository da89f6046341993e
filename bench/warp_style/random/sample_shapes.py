# Sampling points on and in simple shapes for emitters.
import warp as wp


@wp.kernel
def emit(seed: int, sphere: wp.array(dtype=wp.vec3), ball: wp.array(dtype=wp.vec3),
         hemi: wp.array(dtype=wp.vec3), disk: wp.array(dtype=wp.vec2), square: wp.array(dtype=wp.vec2),
         cube: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    sphere[i] = wp.sample_unit_sphere_surface(state)
    ball[i] = wp.sample_unit_sphere(state)
    hemi[i] = wp.sample_unit_hemisphere_surface(state) + wp.sample_unit_hemisphere(state)
    disk[i] = wp.sample_unit_disk(state) + wp.sample_unit_ring(state)
    square[i] = wp.sample_unit_square(state)
    cube[i] = wp.sample_unit_cube(state)
