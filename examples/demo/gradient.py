# Uses one bundled plugin: colors.
import warp as wp


@wp.kernel
def gradient(n: int, brightness: float, out: wp.array(dtype=colors.Color), luminance: wp.array(dtype=float)):
    i = wp.tid()
    t = float(i) / float(n - 1)
    c = wp.colors_scale(colors.Color(t, 0.5 * t, 1.0 - t), brightness)
    out[i] = c
    luminance[i] = wp.colors_luminance(c)
