#include <weft/plugin.hpp>

static void init(weft::plugin::Registrar &r) {
    r.builtin<float(float, float)>("vendor_gain_apply", {"x", "gain"}, "vendor_gain::apply", "x * gain");
}

WEFT_PLUGIN("vendor_gain", "2.1.0", init)
