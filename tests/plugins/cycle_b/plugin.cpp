#include <weft/plugin.hpp>
static void init(weft::plugin::Registrar &) {}
WEFT_PLUGIN("cycle_b", "1.0.0", init)
