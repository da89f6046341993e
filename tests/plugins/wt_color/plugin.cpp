#include <weft/plugin.hpp>
#include <cstdint>
namespace warp_test {
struct Color { float r, g, b; };
struct Image { std::uint64_t handle; };
struct Padded { std::uint8_t tag; std::uint32_t value; };
} // namespace warp_test
WEFT_KERNEL_TYPE(warp_test::Color, "warp_test::Color")
WEFT_KERNEL_TYPE(warp_test::Image, "warp_test::Image")
static void init(weft::plugin::Registrar &r) {
    using warp_test::Color;
    r.add(weft::plugin::NativeType<Color>("warp_test::Color",
                                          {WEFT_FIELD(Color, r), WEFT_FIELD(Color, g), WEFT_FIELD(Color, b)})
              .expose_all()
              .aggregate());
    r.add(weft::plugin::NativeType<warp_test::Image>("warp_test::Image", {WEFT_FIELD(warp_test::Image, handle)}));
    using warp_test::Padded; // 3 bytes of padding between tag and value
    r.add(weft::plugin::NativeType<Padded>("warp_test::Padded", {WEFT_FIELD(Padded, tag), WEFT_FIELD(Padded, value)})
              .expose("tag")
              .expose("value")
              .aggregate());
    r.builtin<Color(Color, float)>("_test_native_scale", {"value", "factor"}, "warp_test::scale", "Scales a color.");
    r.builtin<Color(Color, Color)>("add", {"a", "b"}, "warp_test::add", "Overload on the core add.");
    r.builtin<std::uint64_t(warp_test::Image)>("_test_image_handle", {"image"}, "warp_test::handle");
    weft::plugin::BuildOptions o;
    o.cpu_preamble = "#define WT_COLOR 1";
    o.cuda_preamble = "#define WT_COLOR 1";
    r.add(o);
}
WEFT_PLUGIN("wt_color", "1.2.0", init)
