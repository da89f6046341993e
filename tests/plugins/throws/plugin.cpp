#include <weft/plugin.hpp>
#include <stdexcept>
static void init(weft::plugin::Registrar &r) {
    r.builtin<float(float)>("_th_f", {"x"}, "th::f");
    throw std::runtime_error("device table missing");
}
WEFT_PLUGIN("throws", "1.0.0", init)
