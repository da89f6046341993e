#include <weft/plugin.hpp>
#include <cstdint>
namespace warp_test {
struct Color { float r, g, b; };
struct Pixel { Color color; std::int32_t index; };
} // namespace warp_test
WEFT_KERNEL_TYPE(warp_test::Color, "warp_test::Color")
WEFT_KERNEL_TYPE(warp_test::Pixel, "warp_test::Pixel")
static void init(weft::plugin::Registrar &r) {
    using warp_test::Pixel;
    // Needs warp_test::Color, registered by wt_color: the loader loads that first.
    r.add(weft::plugin::NativeType<Pixel>("warp_test::Pixel", {WEFT_FIELD(Pixel, color), WEFT_FIELD(Pixel, index)})
              .expose_all()
              .aggregate());
    r.builtin<std::int32_t(Pixel)>("_test_pixel_index", {"pixel"}, "warp_test::pixel_index");
}
WEFT_PLUGIN("wt_pixel", "1.0.0", init)
