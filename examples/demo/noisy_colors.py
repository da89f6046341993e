# Uses both bundled plugins: colors (the native type colors::Color, colors_scale,
# colors_luminance and + on colors) and philox (counter-based random numbers).
import warp as wp


@wp.kernel
def noisy_colors(
    seed: wp.uint64,
    base: colors.Color,
    amount: float,
    out: wp.array(dtype=colors.Color),
    luminance: wp.array(dtype=float),
):
    i = wp.tid()
    # One stream per element; three draws from it.
    s = wp.philox_stream(seed, wp.uint64(i) * wp.uint64(3))
    noise = colors.Color(
        wp.philox_next_uniform(s, wp.uint64(0)),
        wp.philox_next_uniform(s, wp.uint64(1)),
        wp.philox_next_uniform(s, wp.uint64(2)),
    )
    c = base + wp.colors_scale(noise, amount)
    out[i] = c
    luminance[i] = wp.colors_luminance(c)
