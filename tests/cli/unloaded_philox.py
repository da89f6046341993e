import warp as wp


# philox_uniform is the bundled philox plugin's: `weft check` without
# --plugin philox says to load it.
@wp.kernel
def noise(out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.philox_uniform(wp.uint64(7), wp.uint64(i))
