// _narrow_scale(x: float32, n: int64) -> float32, registered with the typed
// SDK form, while the function kernels call takes int: C++ would convert
// silently; the smoke compile's exact-signature check names it.
#include <weft/plugin.hpp>

#include <cstdint>

static void init(weft::plugin::Registrar &r) {
    r.builtin<float(float, std::int64_t)>("_narrow_scale", {"x", "n"}, "wt_narrowing::scale", "x times n.");
    weft::plugin::BuildOptions o;
    o.cpu_preamble = o.cuda_preamble =
        "namespace wt_narrowing { WEFT_CALLABLE inline float scale(float x, int n) { return x * float(n); } }\n";
    r.add(o);
}

WEFT_PLUGIN("wt_narrowing", "1.0.0", init)
