// Must not compile: WEFT_BUILTIN takes the builtin's signature from the native
// function, and a long double has no kernel type to register it as. The
// plugin's own build says so; nothing is left for a load to convert silently.
#include <weft/plugin.hpp>

namespace acme {
inline long double widen(long double x) { return x; }
} // namespace acme

static void init(weft::plugin::Registrar &r) { WEFT_BUILTIN(r, "acme_widen", acme::widen, "x"); }
WEFT_PLUGIN("acme", "1.0.0", init)
