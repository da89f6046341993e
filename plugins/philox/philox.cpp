// The philox plugin: counter-based random numbers (Random123's Philox4x32-10), and an
// opaque native type for a random stream.
#include "weft_philox.h"

#include <weft/plugin.hpp>

WEFT_KERNEL_TYPE(philox::Stream, "philox::Stream")

namespace {

void init(weft::plugin::Registrar &r) {
    using philox::Stream;
    // Opaque: kernels pass streams around but cannot read seed or counter.
    r.add(weft::plugin::NativeType<Stream>("philox::Stream", {WEFT_FIELD(Stream, seed), WEFT_FIELD(Stream, counter)})
              .doc("A Philox4x32-10 stream (seed and position), opaque to kernels."));
    r.builtin<std::uint32_t(std::uint64_t, std::uint64_t)>("philox_bits", {"seed", "counter"}, "philox::bits",
                                                           "32 random bits for (seed, counter).");
    r.builtin<float(std::uint64_t, std::uint64_t)>("philox_uniform", {"seed", "counter"}, "philox::uniform",
                                                   "Uniform float32 in [0, 1) for (seed, counter).");
    r.builtin<Stream(std::uint64_t, std::uint64_t)>("philox_stream", {"seed", "counter"}, "philox::stream",
                                                    "A stream starting at counter.");
    r.builtin<float(Stream, std::uint64_t)>("philox_next_uniform", {"stream", "offset"}, "philox::next_uniform",
                                            "Uniform float32 at stream position + offset.");

    const std::string include = r.plugin_directory() + "/include";
    weft::plugin::BuildOptions options;
    options.cpu_include_dirs = {include};
    options.cuda_include_dirs = {include};
    options.cpu_preamble = "#include \"weft_philox.h\"\n";
    options.cuda_preamble = "#include \"weft_philox.h\"\n";
    options.build_dependencies = {include + "/weft_philox.h"};
    r.add(options);
}

} // namespace

WEFT_PLUGIN("philox", "1.0.0", init)
