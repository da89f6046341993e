# expect: 9:17: native type 'warp_test::Color' expects 3 arguments (r, g, b), got 4
# plugins: wt_color
import warp as wp


@wp.kernel
def k(colors: wp.array(dtype=warp_test.Color)):
    i = wp.tid()
    colors[i] = warp_test.Color(1.0, 0.5, 0.25, 1.0)
