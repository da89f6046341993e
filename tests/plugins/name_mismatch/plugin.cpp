#include <weft/plugin.hpp>
static void init(weft::plugin::Registrar &) {}
WEFT_PLUGIN("someone_else", "1.0.0", init)
