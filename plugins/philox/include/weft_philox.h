// Device-side half of the philox plugin: counter-based random numbers with
// Random123's Philox4x32-10 (Salmon et al., SC'11), usable identically on CPU
// and CUDA. The rounds are written out here rather than included from
// Random123, whose headers pull in host-only headers (stddef.h, SSE) that
// NVRTC does not have; a unit test checks them against Random123.
#ifndef WEFT_PHILOX_H
#define WEFT_PHILOX_H

#if defined(__CUDACC_RTC__)
// NVRTC has no C library headers; these are its built-in types.
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#else
#include <stdint.h>
#endif

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

/// Philox4x32-10 of counter `ctr` under key `key`, in place (Random123's philox4x32).
WEFT_CALLABLE inline void philox4x32_10(uint32_t ctr[4], uint32_t key0, uint32_t key1) {
    for (int round = 0; round < 10; ++round) {
        if (round > 0) { // the key schedule: Weyl sequence increments between rounds
            key0 += 0x9E3779B9u;
            key1 += 0xBB67AE85u;
        }
        const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * ctr[0];
        const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * ctr[2];
        const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
        const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
        const uint32_t c1 = ctr[1], c3 = ctr[3];
        ctr[0] = hi1 ^ c1 ^ key0;
        ctr[1] = lo1;
        ctr[2] = hi0 ^ c3 ^ key1;
        ctr[3] = lo0;
    }
}

WEFT_CALLABLE inline uint32_t bits(uint64_t seed, uint64_t counter) {
    uint32_t c[4] = {static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0u, 0u};
    philox4x32_10(c, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
    return c[0];
}

/// Uniform in [0, 1): the top 24 bits, so every value is exact in float32.
WEFT_CALLABLE inline float uniform(uint64_t seed, uint64_t counter) {
    return static_cast<float>(bits(seed, counter) >> 8) * (1.0f / 16777216.0f);
}

WEFT_CALLABLE inline float next_uniform(Stream s, uint64_t offset) { return uniform(s.seed, s.counter + offset); }

} // namespace philox

#endif
