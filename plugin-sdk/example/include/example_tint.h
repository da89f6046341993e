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

} // namespace example_tint

#endif
