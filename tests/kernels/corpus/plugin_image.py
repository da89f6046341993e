import warp as wp
# plugins: wt_color


@wp.func
def handle_of(img: warp_test.Image) -> wp.uint64:
    return wp._test_image_handle(img)


@wp.kernel
def image_handles(image: warp_test.Image, out: wp.array(dtype=wp.uint64)):
    i = wp.tid()
    out[i] = wp._test_image_handle(image)


@wp.kernel
def default_image(out: wp.array(dtype=wp.uint64)):
    i = wp.tid()
    img = warp_test.Image()
    out[i] = handle_of(img) + wp.uint64(i)


@wp.kernel
def padded_fields(out: wp.array(dtype=wp.uint32), tags: wp.array(dtype=wp.uint8)):
    i = wp.tid()
    a = warp_test.Padded(wp.uint8(1), wp.uint32(7))
    b = warp_test.Padded(tag=wp.uint8(2), value=wp.uint32(i))
    c = warp_test.Padded(3, 9)
    out[i] = a.value + b.value + c.value
    tags[i] = a.tag | b.tag | c.tag
