#include <weft/plugin.hpp>
static void init(weft::plugin::Registrar &r) {
    r.builtin<double(float)>("_cf_value", {"x"}, "conflict::value", "float64 flavour");
}
WEFT_PLUGIN("conflict_b", "1.0.0", init)
