#include <weft/plugin.hpp>
namespace same { struct Pair { float a; int b; }; }
WEFT_KERNEL_TYPE(same::Pair, "same::Pair")
static void init(weft::plugin::Registrar &r) {
    r.add(weft::plugin::NativeType<same::Pair>("same::Pair", {WEFT_FIELD(same::Pair, a), WEFT_FIELD(same::Pair, b)})
              .expose_all()
              .aggregate());
    r.builtin<float(float)>("_same_twice", {"x"}, "same::twice", "2x");
    r.builtin<float(same::Pair)>("_same_first", {"p"}, "same::first");
}
WEFT_PLUGIN("same_b", "1.0.0", init)
