#include <weft/plugin.hpp>
static void init(weft::plugin::Registrar &r) {
    r.builtin<float(float)>("_cf_value", {"x"}, "conflict::value", "float32 flavour");
    r.builtin<float(float, float)>("_cf_other", {"x", "y"}, "conflict::other");
}
WEFT_PLUGIN("conflict_a", "1.0.0", init)
