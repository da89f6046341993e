// The SDK's example plugin: describes a native type and two builtins to the
// host. The functions themselves live in include/example_tint.h.
#include "example_tint.h"

#include <weft/plugin.hpp>

WEFT_KERNEL_TYPE(example_tint::Rgb, "example_tint::Rgb")

namespace {

void init(weft::plugin::Registrar &r) {
    using example_tint::Rgb;
    r.add(weft::plugin::NativeType<Rgb>("example_tint::Rgb", {WEFT_FIELD(Rgb, r), WEFT_FIELD(Rgb, g), WEFT_FIELD(Rgb, b)})
              .expose_all()
              .aggregate()
              .doc("Linear RGB, three float32 channels."));
    r.builtin<Rgb(Rgb, Rgb, float)>("example_tint_mix", {"a", "b", "t"}, "example_tint::mix", "a + (b - a) * t");
    r.builtin<float(Rgb)>("example_tint_luma", {"c"}, "example_tint::luma", "Rec. 709 luma.");

    const std::string include = r.plugin_directory() + "/include";
    weft::plugin::BuildOptions options;
    options.cpu_include_dirs = {include};
    options.cuda_include_dirs = {include};
    options.cpu_preamble = "#include \"example_tint.h\"\n";
    options.cuda_preamble = "#include \"example_tint.h\"\n";
    options.build_dependencies = {include + "/example_tint.h"};
    r.add(options);
}

} // namespace

WEFT_PLUGIN("example_tint", "1.0.0", init)
