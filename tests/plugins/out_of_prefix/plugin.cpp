#include <weft/plugin.hpp>
static void init(weft::plugin::Registrar &r) {
    r.builtin<float(float)>("_op_fine", {"x"}, "out_of_prefix::fine");
    r.builtin<float(float)>("stolen_name", {"x"}, "out_of_prefix::stolen");
}
WEFT_PLUGIN("out_of_prefix", "1.0.0", init)
