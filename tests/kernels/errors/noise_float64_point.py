# expect: 10:14: no overload of 'noise' matches the argument types (uint32, float64)
import warp as wp


@wp.kernel
def heights(xs: wp.array(dtype=wp.float64), out: wp.array(dtype=float)):
    # Warp's noise samples float32 points only: a float64 coordinate needs a cast.
    i = wp.tid()
    state = wp.rand_init(7)
    out[i] = wp.noise(state, xs[i])
