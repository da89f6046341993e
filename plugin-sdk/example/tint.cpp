// The SDK's example plugin: describes a native type and three builtins to the
// host. The functions themselves live in include/example_tint.h (shared by
// plugin and kernels) and include/example_tint_arrays.h (kernels only: its
// functions take weft's runtime array type).
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
    // An array parameter: the SDK's mirror names weft::array_t<Rgb> here.
    r.builtin<Rgb(weft::plugin::array_t<Rgb>)>("example_tint_average", {"pixels"}, "example_tint::average",
                                               "The mean color of a 1-d array.");

    const std::string include = r.plugin_directory() + "/include";
    weft::plugin::BuildOptions options;
    options.cpu_include_dirs = {include};
    options.cuda_include_dirs = {include};
    options.cpu_preamble = "#include \"example_tint_arrays.h\"\n"; // includes example_tint.h
    options.cuda_preamble = "#include \"example_tint_arrays.h\"\n";
    options.build_dependencies = {include + "/example_tint.h", include + "/example_tint_arrays.h"};
    r.add(options);
}

} // namespace

WEFT_PLUGIN("example_tint", "1.0.0", init)
