// The native types and functions of NVIDIA Warp's external-build tests
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
