// Device-side half of the philox plugin: counter-based random numbers from
// Random123's Philox4x32-10, usable identically on CPU and CUDA.
#ifndef WEFT_PHILOX_H
#define WEFT_PHILOX_H

#include <Random123/philox.h>
#include <stdint.h>

// WEFT_CALLABLE comes from the plugin SDK. In kernel modules weft's runtime
// headers, included before every plugin preamble, have defined it already, so
// the SDK header is needed (and looked for) only by the plugin's own sources.
#ifndef WEFT_CALLABLE
#include <weft/callable.h>
#endif

namespace philox {

/// A stream: a key (the seed) and a position in it. Kernels treat it as opaque.
struct Stream {
    uint64_t seed;
    uint64_t counter;
};

WEFT_CALLABLE inline Stream stream(uint64_t seed, uint64_t counter) { return Stream{seed, counter}; }

WEFT_CALLABLE inline uint32_t bits(uint64_t seed, uint64_t counter) {
    philox4x32_key_t k = {{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}};
    philox4x32_ctr_t c = {{static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0u, 0u}};
    return philox4x32(c, k).v[0];
}

/// Uniform in [0, 1): the top 24 bits, so every value is exact in float32.
WEFT_CALLABLE inline float uniform(uint64_t seed, uint64_t counter) {
    return static_cast<float>(bits(seed, counter) >> 8) * (1.0f / 16777216.0f);
}

WEFT_CALLABLE inline float next_uniform(Stream s, uint64_t offset) { return uniform(s.seed, s.counter + offset); }

} // namespace philox

#endif
