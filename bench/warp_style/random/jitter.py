# Jittered particle positions: one RNG stream per particle.
import warp as wp


@wp.kernel
def jitter(seed: int, x: wp.array(dtype=wp.vec3), amount: float):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    d = wp.vec3(wp.randf(state) - 0.5, wp.randf(state) - 0.5, wp.randf(state) - 0.5)
    x[i] = x[i] + d * amount
