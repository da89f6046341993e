#include <weft/plugin.hpp>
namespace init_fails { struct Thing { int v; }; }
WEFT_KERNEL_TYPE(init_fails::Thing, "init_fails::Thing")
static void init(weft::plugin::Registrar &r) {
    r.add(weft::plugin::NativeType<init_fails::Thing>("init_fails::Thing", {WEFT_FIELD(init_fails::Thing, v)}).expose_all());
    r.builtin<float(float)>("_if_one", {"x"}, "init_fails::one");
    r.builtin<int(init_fails::Thing)>("_if_two", {"t"}, "init_fails::two");
    r.builtin<float(float, float)>("add", {"a", "b"}, "init_fails::add_shadow"); // conflicts with core add
}
WEFT_PLUGIN("init_fails", "1.0.0", init)
