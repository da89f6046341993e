import warp as wp
# plugins: wt_color


@wp.kernel
def tint(colors: wp.array(dtype=warp_test.Color), factor: float):
    i = wp.tid()
    c = colors[i]
    c = wp._test_native_scale(c, factor)
    colors[i] = c


@wp.kernel
def make_colors(colors: wp.array(dtype=warp_test.Color)):
    i = wp.tid()
    base = warp_test.Color(1.0, 2.0, 3.0)
    shade = warp_test.Color(r=0.1, g=0.2, b=float(i) * 0.01)
    mixed = base + shade
    mixed.r = mixed.r * 0.5
    mixed.g = mixed.g + mixed.b
    colors[i] = mixed
    colors[i].b = 0.0


@wp.func
def luminance_of(c: warp_test.Color) -> float:
    return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b


@wp.kernel
def luminance(colors: wp.array(dtype=warp_test.Color), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = luminance_of(colors[i])


@wp.kernel
def accumulate_colors(a: wp.array(dtype=warp_test.Color), b: wp.array(dtype=warp_test.Color), weight: float):
    i = wp.tid()
    black = warp_test.Color()
    total = black + a[i] + wp._test_native_scale(b[i], weight)
    a[i] = total
