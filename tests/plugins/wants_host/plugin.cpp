// Never initialized: its [requires] weft fails before the library is opened.
#include <weft/plugin.hpp>

namespace {
void init(weft::plugin::Registrar &r) { r.builtin<float(float)>("_wh_f", {"x"}, "wh::f"); }
} // namespace

WEFT_PLUGIN("wants_host", "1.0.0", init)
