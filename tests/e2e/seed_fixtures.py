# The kernels of NVIDIA Warp's external-build tests (warp/tests/test_external_build.py),
# over the seed_fixtures test plugin. test_seed_fixtures.cpp launches them.
import warp as wp
# plugins: seed_fixtures
import warp_test

NATIVE_COLOR_CONSTANT = wp.constant(warp_test.Color(0.25, 0.5, 0.75))


@wp.struct
class NativeContainer:
    color: warp_test.Color


@wp.kernel
def native_array_kernel(
    pixels: wp.array[warp_test.Pixel],
    images: wp.array[warp_test.Image],
    colors: wp.array[warp_test.Color],
    handles: wp.array[wp.uint64],
):
    i = wp.tid()
    color = warp_test.Color(wp.float32(i), NATIVE_COLOR_CONSTANT.g, 3.0)
    pixel = warp_test.Pixel(color, i)
    pixels[i] = pixel
    colors[i] = wp._test_native_scale(pixel.color, 2.0)
    handles[i] = wp._test_native_image_handle(images[i])


@wp.kernel
def native_struct_kernel(
    container: NativeContainer,
    image: warp_test.Image,
    color: wp.array[warp_test.Color],
    handle: wp.array[wp.uint64],
):
    color[0] = container.color
    handle[0] = wp._test_native_image_handle(image)


# A padded native type (uint8 tag, 3 padding bytes, uint32 value), copied whole.
@wp.kernel
def padded_copy(src: wp.array[warp_test.PaddedValue], dst: wp.array[warp_test.PaddedValue]):
    i = wp.tid()
    dst[i] = src[i]


# The preamble follows weft's runtime headers (it uses CUDA_CALLABLE) ...
@wp.kernel
def preamble_kernel(out: wp.array[wp.float32]):
    out[0] = wp._test_preamble_double(1.5)


# ... and precedes any codegen-only macro (its float(x) and int(x) are plain C++).
@wp.kernel
def preamble_cast_kernel(out: wp.array[wp.float32]):
    out[0] = wp._test_preamble_cast(7)
