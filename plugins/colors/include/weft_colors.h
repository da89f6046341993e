// Device-side half of the colors plugin: included into every module that
// uses the plugin (CPU and CUDA), through the plugin's build options.
#ifndef WEFT_COLORS_H
#define WEFT_COLORS_H

// WEFT_CALLABLE comes from the plugin SDK. In kernel modules weft's runtime
// headers, included before every plugin preamble, have defined it already, so
// the SDK header is needed (and looked for) only by the plugin's own sources.
#ifndef WEFT_CALLABLE
#include <weft/callable.h>
#endif

namespace colors {

struct Color {
    float r;
    float g;
    float b;
};

WEFT_CALLABLE inline Color scale(Color value, float factor) {
    return Color{value.r * factor, value.g * factor, value.b * factor};
}

WEFT_CALLABLE inline Color add(Color a, Color b) { return Color{a.r + b.r, a.g + b.g, a.b + b.b}; }

// Rec. 709 relative luminance of a linear RGB color.
WEFT_CALLABLE inline float luminance(Color c) { return 0.2126f * c.r + 0.7152f * c.g + 0.0722f * c.b; }

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define COLORS_POWF powf
#else
#define COLORS_POWF __builtin_powf
#endif

// sRGB transfer function, decoding: an encoded channel to linear light.
WEFT_CALLABLE inline float srgb_to_linear(float c) {
    return c <= 0.04045f ? c / 12.92f : COLORS_POWF((c + 0.055f) / 1.055f, 2.4f);
}

// Its adjoint, the gradient contract weft calls in backward passes:
// adds d(srgb_to_linear)/dc * adj_result to adj_c.
WEFT_CALLABLE inline void adj_srgb_to_linear(float c, float &adj_c, float adj_result) {
    adj_c += adj_result * (c <= 0.04045f ? 1.0f / 12.92f : 2.4f / 1.055f * COLORS_POWF((c + 0.055f) / 1.055f, 1.4f));
}

} // namespace colors

#endif
