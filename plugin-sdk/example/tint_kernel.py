import warp as wp


@wp.kernel
def tint(pixels: wp.array(dtype=example_tint.Rgb), target: example_tint.Rgb, amount: float,
         luma: wp.array(dtype=float)):
    i = wp.tid()
    mixed = wp.example_tint_mix(pixels[i], target, amount)
    mixed.b = 0.5 * mixed.b
    pixels[i] = mixed
    luma[i] = example_tint_luma(example_tint.Rgb(mixed.r, mixed.g, 0.0))


@wp.kernel
def average(pixels: wp.array(dtype=example_tint.Rgb), mean: wp.array(dtype=example_tint.Rgb)):
    mean[0] = wp.example_tint_average(pixels)


@wp.kernel
def recolor(palette: wp.uint64, index: wp.array(dtype=int), pixels: wp.array(dtype=example_tint.Rgb)):
    # palette: an example_tint_palette object's id
    i = wp.tid()
    pixels[i] = wp.example_tint_palette_color(palette, index[i])
