// The SDK's example plugin: describes a native type, four builtins and a
// host object type (a palette) to the host. The functions themselves live in include/example_tint.h (shared by
// plugin and kernels) and include/example_tint_arrays.h (kernels only: its
// functions take weft's runtime array type).
#include "example_tint.h"

#include <weft/plugin.hpp>

#include <cstdint>
#include <vector>

WEFT_KERNEL_TYPE(example_tint::Rgb, "example_tint::Rgb")

namespace {

using weft::plugin::ObjectArgs;
using weft::plugin::ObjectContext;

/// A host object: a palette of colors an application builds from an array
/// (host.create("example_tint_palette", {{"colors", colors}})) and kernels
/// read by id. Its memory comes from the host's callbacks, on the palette's device.
class PaletteObject {
public:
    PaletteObject(ObjectContext &ctx, const ObjectArgs &args) {
        std::int64_t n = 0;
        const example_tint::Rgb *colors = args.elements<example_tint::Rgb>("colors", &n);
        if (n == 0) throw weft::plugin::Error(WEFT_ERROR_INVALID_ARGUMENT, "colors: a palette needs a color");
        host_.resize(static_cast<std::size_t>(n));
        ctx.download(host_.data(), colors, host_.size()); // a copy: the caller may reuse its array
        descriptor_ = static_cast<example_tint::Palette *>(ctx.device_alloc(sizeof(example_tint::Palette)));
        publish(ctx);
    }
    std::uint64_t id() const { return reinterpret_cast<std::uintptr_t>(descriptor_); }
    /// scale(factor): every color times factor.
    void scale(ObjectContext &ctx, const ObjectArgs &args) {
        const float f = static_cast<float>(args.number("factor"));
        for (example_tint::Rgb &c : host_) c = example_tint::Rgb{c.r * f, c.g * f, c.b * f};
        publish(ctx);
    }
    void release(ObjectContext &ctx) {
        ctx.device_free(colors_);
        ctx.device_free(descriptor_);
    }

private:
    void publish(ObjectContext &ctx) {
        ctx.device_free(colors_);
        colors_ = ctx.upload(host_.data(), host_.size());
        const example_tint::Palette p{colors_, static_cast<int>(host_.size()), 0};
        ctx.copy(descriptor_, &p, sizeof p, WEFT_COPY_HOST_TO_DEVICE);
    }
    std::vector<example_tint::Rgb> host_;
    example_tint::Rgb *colors_ = nullptr;
    example_tint::Palette *descriptor_ = nullptr;
};

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

    r.builtin<Rgb(std::uint64_t, int)>("example_tint_palette_color", {"palette", "i"}, "example_tint::palette_color",
                                       "Color i of a palette object (black outside it).");
    r.add(weft::plugin::ObjectType<PaletteObject>("example_tint_palette")
              .doc("A palette of colors kernels read by id.")
              .params({{"colors", "array(dtype=example_tint::Rgb)"}})
              .method<&PaletteObject::scale>("scale", {{"factor", "float32"}}, "Every color times factor."));

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
