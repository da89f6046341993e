#include <weft/plugin.hpp>
static void init(weft::plugin::Registrar &r) { r.builtin<float(float)>("_mr_f", {"x"}, "mr::f"); }
WEFT_PLUGIN("missing_req", "1.0.0", init)
