// seed_fixtures: the seed's warp_test native types, builtins and preamble
// (NVIDIA Warp's warp/tests/test_external_build.py), for end-to-end runs of
// kernels (tests/e2e). The layouts registered here are measured from
// seed_fixtures.h; kPreamble is the same text, given to kernel modules as the
// CPU and CUDA preamble. tests/e2e checks that the two texts are equal, and
// every module that uses a type checks its layout against the preamble's
// definitions (static_asserts in the generated source).
#define CUDA_CALLABLE
#include "seed_fixtures.h"

#include <weft/plugin.hpp>

#include <cstddef>
#include <cstdint>

namespace {

// Keep equal to seed_fixtures.h, byte for byte.
constexpr const char kPreamble[] = R"seed_fixtures(// The native types and functions of NVIDIA Warp's external-build tests
// (warp/tests/test_external_build.py), in namespace warp_test.
//
// One text, used twice: plugin.cpp includes this header to measure the
// layouts it registers, and embeds the same text (kPreamble) as the plugin's
// CPU and CUDA preamble, so every kernel module that uses the plugin compiles
// against these definitions. The preamble follows weft's runtime headers, which
// define CUDA_CALLABLE; plugin.cpp defines it (empty) before including this.
#ifndef WEFT_TEST_SEED_FIXTURES_H
#define WEFT_TEST_SEED_FIXTURES_H

namespace warp_test {

struct Color {
    float r;
    float g;
    float b;
};

struct Pixel {
    Color color;
    int index;
};

// Opaque to kernels.
struct Image {
    unsigned long long handle;
};

// 3 padding bytes between tag and value.
struct PaddedValue {
    unsigned char tag;
    unsigned int value;
};

CUDA_CALLABLE inline Color scale(Color value, float scale) {
    return Color{value.r * scale, value.g * scale, value.b * scale};
}

CUDA_CALLABLE inline unsigned long long image_handle(Image image) { return image.handle; }

// Function-style casts stay ordinary C++: the preamble precedes any
// codegen-only macro.
CUDA_CALLABLE inline float preamble_cast(int value) {
    int rounded = int(0.5f);
    return float(value + rounded);
}

CUDA_CALLABLE inline float preamble_double(float x) { return x + x; }

} // namespace warp_test

#endif
)seed_fixtures";

// The seed's shapes (ctypes: c_float x3; Color + c_int32; c_uint64; c_uint8 + c_uint32).
static_assert(sizeof(warp_test::Color) == 12 && alignof(warp_test::Color) == 4);
static_assert(sizeof(warp_test::Pixel) == 16 && offsetof(warp_test::Pixel, index) == 12);
static_assert(sizeof(warp_test::Image) == 8 && alignof(warp_test::Image) == 8);
static_assert(sizeof(warp_test::PaddedValue) == 8 && offsetof(warp_test::PaddedValue, value) == 4,
              "PaddedValue: tag, 3 padding bytes, value");
static_assert(sizeof(int) == sizeof(std::int32_t) && sizeof(unsigned long long) == sizeof(std::uint64_t));

} // namespace

WEFT_KERNEL_TYPE(warp_test::Color, "warp_test::Color")
WEFT_KERNEL_TYPE(warp_test::Pixel, "warp_test::Pixel")
WEFT_KERNEL_TYPE(warp_test::Image, "warp_test::Image")
WEFT_KERNEL_TYPE(warp_test::PaddedValue, "warp_test::PaddedValue")

static void init(weft::plugin::Registrar &r) {
    using warp_test::Color;
    using warp_test::Image;
    using warp_test::PaddedValue;
    using warp_test::Pixel;
    r.add(weft::plugin::NativeType<Color>("warp_test::Color",
                                          {WEFT_FIELD(Color, r), WEFT_FIELD(Color, g), WEFT_FIELD(Color, b)})
              .expose_all()
              .aggregate()
              .doc("The seed's NativeColor: three float32 channels."));
    r.add(weft::plugin::NativeType<Pixel>("warp_test::Pixel", {WEFT_FIELD(Pixel, color), WEFT_FIELD(Pixel, index)})
              .expose_all()
              .aggregate()
              .doc("The seed's NativePixel: a nested warp_test::Color and an int32 index."));
    r.add(weft::plugin::NativeType<Image>("warp_test::Image", {WEFT_FIELD(Image, handle)})
              .doc("The seed's NativeImage: opaque, one uint64 handle."));
    r.add(weft::plugin::NativeType<PaddedValue>("warp_test::PaddedValue",
                                                {WEFT_FIELD(PaddedValue, tag), WEFT_FIELD(PaddedValue, value)})
              .expose_all()
              .aggregate()
              .doc("The seed's PaddedValue: uint8 tag, 3 padding bytes, uint32 value."));

    r.builtin<Color(Color, float)>("_test_native_scale", {"value", "scale"}, "warp_test::scale",
                                   "Scales every channel.");
    r.builtin<std::uint64_t(Image)>("_test_native_image_handle", {"image"}, "warp_test::image_handle",
                                    "The image's handle.");
    r.builtin<float(std::int32_t)>("_test_preamble_cast", {"value"}, "warp_test::preamble_cast",
                                   "float(value + int(0.5f)), with function-style casts in the preamble.");
    r.builtin<float(float)>("_test_preamble_double", {"x"}, "warp_test::preamble_double", "x + x.");

    weft::plugin::BuildOptions options;
    options.cpu_preamble = kPreamble;
    options.cuda_preamble = kPreamble;
    r.add(options);
}

WEFT_PLUGIN("seed_fixtures", "1.0.0", init)
