// Registers nothing that clashes itself: its requirement conflict_a does.
#include <weft/plugin.hpp>
static void init(weft::plugin::Registrar &r) {
    r.builtin<float(float)>("_cu_twice", {"x"}, "conflict_user::twice", "Doubles x.");
}
WEFT_PLUGIN("conflict_user", "1.0.0", init)
