# expect: 8:14: native type 'warp_test::Image' has no exposed field 'handle' (it is opaque)
# plugins: wt_color
import warp as wp


@wp.kernel
def k(image: warp_test.Image, out: wp.array(dtype=wp.uint64)):
    out[0] = image.handle
