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

} // namespace colors

#endif
