#include <weft/plugin.hpp>
static void init(weft::plugin::Registrar &r) { r.builtin<float(float)>("_v2_f", {"x"}, "v2::f"); }
WEFT_PLUGIN("wants_v2", "1.0.0", init)
