// The bundled philox plugin's device header writes Philox4x32-10 out itself
// (Random123's headers do not compile under NVRTC): it must give Random123's
// numbers, bit for bit.
#define WEFT_CALLABLE
#include "weft_philox.h"

#include <Random123/philox.h>

#include <catch2/catch.hpp>

#include <cstdint>

TEST_CASE("philox's Philox4x32-10 gives Random123's known answers and values") {
    // Random123's known-answer vectors (kat_vectors: philox4x32 10 rounds).
    std::uint32_t zero[4] = {0, 0, 0, 0};
    philox::philox4x32_10(zero, 0, 0);
    CHECK(zero[0] == 0x6627e8d5u);
    CHECK(zero[1] == 0xe169c58du);
    CHECK(zero[2] == 0xbc57ac4cu);
    CHECK(zero[3] == 0x9b00dbd8u);
    std::uint32_t ones[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    philox::philox4x32_10(ones, 0xffffffffu, 0xffffffffu);
    CHECK(ones[0] == 0x408f276du);
    CHECK(ones[1] == 0x41c83b0eu);
    CHECK(ones[2] == 0xa20bc7c6u);
    CHECK(ones[3] == 0x6d5451fdu);

    // And Random123 itself over a spread of seeds and counters.
    int differ = 0;
    for (std::uint64_t seed : {0ull, 1ull, 42ull, 0x0123456789abcdefull, ~0ull})
        for (std::uint64_t counter = 0; counter < 2000; counter += 7) {
            philox4x32_key_t k = {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
            philox4x32_ctr_t c = {{static_cast<std::uint32_t>(counter), static_cast<std::uint32_t>(counter >> 32), 0u, 0u}};
            differ += philox::bits(seed, counter) != philox4x32(c, k).v[0];
        }
    CHECK(differ == 0);
    CHECK(philox::uniform(42, 7) >= 0.0f);
    CHECK(philox::uniform(42, 7) < 1.0f);
}
