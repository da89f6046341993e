# expect: 5:21: constants of opaque native type 'warp_test::Image' cannot be captured
# plugins: wt_color
import warp as wp

IMAGE = wp.constant(warp_test.Image())


@wp.kernel
def k(out: wp.array(dtype=wp.uint64)):
    out[0] = wp._test_image_handle(IMAGE)

