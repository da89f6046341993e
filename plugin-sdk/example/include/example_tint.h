// The device-side half of example_tint: kernels include it (through the
// plugin's build options) and so does the plugin itself, so the layout the
// host checks is the layout kernels compile against.
#ifndef EXAMPLE_TINT_H
#define EXAMPLE_TINT_H

// Defined by weft's runtime headers in kernel modules; by the SDK here.
#ifndef WEFT_CALLABLE
#include <weft/callable.h>
#endif

namespace example_tint {

struct Rgb {
    float r;
    float g;
    float b;
};

WEFT_CALLABLE inline Rgb mix(Rgb a, Rgb b, float t) {
    return Rgb{a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

WEFT_CALLABLE inline float luma(Rgb c) { return 0.2126f * c.r + 0.7152f * c.g + 0.0722f * c.b; }

/// What a palette object's id points to, in the palette's device memory
/// (the plugin builds it; kernels read it).
struct Palette {
    const Rgb *colors;
    int count;
    int reserved;
};

/// Color `i` of the palette `id`; black outside it.
WEFT_CALLABLE inline Rgb palette_color(unsigned long long id, int i) {
    const Palette &p = *reinterpret_cast<const Palette *>(id);
    return i >= 0 && i < p.count ? p.colors[i] : Rgb{0.0f, 0.0f, 0.0f};
}

} // namespace example_tint

#endif
