# expect: 9:17: native type 'warp_test::Color' aggregate construction is missing fields: g, b
# plugins: wt_color
import warp as wp


@wp.kernel
def k(colors: wp.array(dtype=warp_test.Color)):
    i = wp.tid()
    colors[i] = warp_test.Color(r=1.0)
