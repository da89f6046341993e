# expect: 8:11: native type 'warp_test::Image' only supports default construction
# plugins: wt_color
import warp as wp


@wp.kernel
def k(out: wp.array(dtype=wp.uint64)):
    img = warp_test.Image(wp.uint64(7))
    out[0] = wp._test_image_handle(img)
