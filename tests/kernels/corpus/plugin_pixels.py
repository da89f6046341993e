import warp as wp
# plugins: wt_color wt_pixel


@wp.kernel
def pixel_indices(pixels: wp.array(dtype=warp_test.Pixel), out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = wp._test_pixel_index(pixels[i])


@wp.kernel
def make_pixels(pixels: wp.array(dtype=warp_test.Pixel)):
    i = wp.tid()
    c = warp_test.Color(0.5, 0.5, float(i))
    p = warp_test.Pixel(c, i)
    p.color.g = 1.0
    p.index = p.index * 2
    pixels[i] = p


@wp.kernel
def brighten(pixels: wp.array(dtype=warp_test.Pixel), amount: float):
    i = wp.tid()
    px = pixels[i]
    px.color = wp._test_native_scale(px.color, amount) + warp_test.Color(r=0.0, g=0.0, b=0.1)
    pixels[i] = px
    q = warp_test.Pixel(color=px.color, index=i)
    wp.expect_eq(wp._test_pixel_index(q), i)


@wp.kernel
def red_channel(pixels: wp.array2d(dtype=warp_test.Pixel), red: wp.array2d(dtype=float)):
    y, x = wp.tid()
    red[y, x] = pixels[y, x].color.r
