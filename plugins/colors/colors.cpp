// The colors plugin: a linear RGB native type and a few operations on it.
// The layout the host checks comes from the same header the kernels include.
#include "weft_colors.h"

#include <weft/plugin.hpp>

WEFT_KERNEL_TYPE(colors::Color, "colors::Color")

namespace {

void init(weft::plugin::Registrar &r) {
    using colors::Color;
    r.add(weft::plugin::NativeType<Color>("colors::Color",
                                          {WEFT_FIELD(Color, r), WEFT_FIELD(Color, g), WEFT_FIELD(Color, b)})
              .expose_all()
              .aggregate()
              .doc("Linear RGB color, three float32 channels."));
    r.builtin<Color(Color, float)>("colors_scale", {"value", "factor"}, "colors::scale", "Scales every channel.");
    r.builtin<float(Color)>("colors_luminance", {"value"}, "colors::luminance", "Rec. 709 relative luminance.");
    // Differentiable: backward passes call colors::adj_srgb_to_linear (see weft_colors.h).
    r.builtin<float(float)>("colors_srgb_to_linear", {"c"}, "colors::srgb_to_linear",
                            "Decodes an sRGB-encoded channel to linear light.",
                            weft::plugin::Adjoint{"colors::adj_srgb_to_linear"});
    // An overload on the core `add`, so `a + b` works on colors in kernels.
    r.builtin<Color(Color, Color)>("add", {"a", "b"}, "colors::add", "Channel-wise sum.");

    const std::string include = r.plugin_directory() + "/include";
    weft::plugin::BuildOptions options;
    options.cpu_include_dirs = {include};
    options.cuda_include_dirs = {include};
    options.cpu_preamble = "#include \"weft_colors.h\"\n";
    options.cuda_preamble = "#include \"weft_colors.h\"\n";
    options.build_dependencies = {include + "/weft_colors.h"};
    r.add(options);
}

} // namespace

WEFT_PLUGIN("colors", "1.0.0", init)
