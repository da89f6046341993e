// The kernel-only half of example_tint: functions whose parameters are weft's
// runtime types (weft::array_t, weft::vec3, ...), which exist only where weft
// compiles kernels. Kernels include it through the plugin's preamble; the
// plugin never does. The plugin registers these functions with the SDK's
// mirrors of the same types (weft::plugin::array_t<Rgb> for weft::array_t<Rgb>:
// the same layout and kernel type), so it needs no runtime header.
#ifndef EXAMPLE_TINT_ARRAYS_H
#define EXAMPLE_TINT_ARRAYS_H

#include "example_tint.h"

namespace example_tint {

/// The mean color of a 1-d array of pixels (black for an empty one).
WEFT_CALLABLE inline Rgb average(weft::array_t<Rgb> pixels) {
    Rgb sum{0.0f, 0.0f, 0.0f};
    const weft::int32 n = pixels.shape[0];
    for (weft::int32 i = 0; i < n; ++i) {
        const Rgb &p = weft::index(pixels, i);
        sum.r += p.r;
        sum.g += p.g;
        sum.b += p.b;
    }
    if (n == 0) return sum;
    return Rgb{sum.r / float(n), sum.g / float(n), sum.b / float(n)};
}

} // namespace example_tint

#endif
