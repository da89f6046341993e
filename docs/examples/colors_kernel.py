import warp as wp

# Uses the colors plugin: its native type as colors.Color (or colors::Color in
# C++), its builtins by their registered names, with or without `wp.`.


@wp.kernel
def grade(pixels: wp.array(dtype=colors.Color), gain: float, luma: wp.array(dtype=float)):
    i = wp.tid()
    c = pixels[i]                                  # a colors::Color, copied
    warm = colors.Color(0.1, 0.05, 0.0)            # aggregate construction: r, g, b
    c = colors_scale(c, gain) + warm               # a builtin; + is colors' overload of add
    c.b = c.b * 0.5                                # exposed fields read and write
    pixels[i] = c
    luma[i] = wp.colors_luminance(c)
    empty = colors.Color()                         # default construction: all zero
    luma[i] = luma[i] + empty.r
