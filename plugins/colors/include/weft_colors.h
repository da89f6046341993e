// Device-side half of the colors plugin: included into every module that
// uses the plugin (CPU and CUDA), through the plugin's build options.
#ifndef WEFT_COLORS_H
#define WEFT_COLORS_H

#ifndef WEFT_CALLABLE
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WEFT_CALLABLE __host__ __device__
#else
#define WEFT_CALLABLE
#endif
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

} // namespace colors

#endif
