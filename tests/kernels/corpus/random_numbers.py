# Warp's random numbers: rand_init, randi, randu, randf, randn and the uniform
# samplers, each draw advancing the state in place. warp.corpus checks the
# values against warp-lang bit for bit (within float tolerance).
import warp as wp


@wp.func
def jitter(state: wp.uint32, scale: float) -> float:
    # The state is a copy here: the caller's stream does not advance.
    return wp.randf(state, -scale, scale)


@wp.kernel
def draws(seeds: wp.array(dtype=int), ints: wp.array(dtype=int), uints: wp.array(dtype=wp.uint32),
          floats: wp.array(dtype=float)):
    i = wp.tid()
    state = wp.rand_init(seeds[i], i)
    ints[i] = wp.randi(state) % 1000 + wp.randi(state, -5, 5)
    uints[i] = wp.randu(state) ^ wp.randu(state, wp.uint32(3), wp.uint32(17))
    floats[i] = wp.randf(state) + wp.randf(state, -2.0, 2.0) * 10.0 + wp.randn(state) * 100.0 + jitter(state, 0.5)
    other = wp.rand_init(seeds[i])
    ints[i] = ints[i] + wp.randi(other, 0, 3)


@wp.kernel
def samples(seeds: wp.array(dtype=int), v2: wp.array(dtype=wp.vec2), v3: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    state = wp.rand_init(seeds[i] * 7919, i)
    v2[i] = wp.sample_triangle(state) + wp.sample_unit_ring(state) * 10.0 + wp.sample_unit_disk(state) * 100.0
    v2[i] = v2[i] + wp.sample_unit_square(state) * 1000.0
    v3[i] = wp.sample_unit_sphere_surface(state) + wp.sample_unit_sphere(state) * 10.0
    v3[i] = v3[i] + wp.sample_unit_hemisphere_surface(state) * 100.0 + wp.sample_unit_hemisphere(state) * 1000.0
    v3[i] = v3[i] + wp.sample_unit_cube(state) * 10000.0


@wp.kernel
def counts(seeds: wp.array(dtype=int), cdf: wp.array(dtype=float), rates: wp.array(dtype=float),
           picks: wp.array(dtype=int), events: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    state = wp.rand_init(seeds[i], i + 100)
    picks[i] = wp.sample_cdf(state, cdf)
    events[i] = wp.poisson(state, rates[i]) + wp.poisson(state, rates[i] * 20.0) * wp.uint32(1000)
    events[i] = events[i] + wp.poisson(state, 0.0)
