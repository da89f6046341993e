// Gradient contracts for plugin builtins: _adj_cube(x) = x^3 with its adjoint,
// and _adj_lying(x) whose declared adjoint takes double where float is due.
#include <weft/plugin.hpp>

static void init(weft::plugin::Registrar &r) {
    r.builtin<float(float)>("_adj_cube", {"x"}, "wt_adjoint::cube", "x cubed.",
                            weft::plugin::Adjoint{"wt_adjoint::adj_cube"});
    r.builtin<float(float)>("_adj_lying", {"x"}, "wt_adjoint::lying", "Twice x; its adjoint's signature is wrong.",
                            weft::plugin::Adjoint{"wt_adjoint::adj_lying"});
    weft::plugin::BuildOptions o;
    o.cpu_preamble = o.cuda_preamble = R"(namespace wt_adjoint {
WEFT_CALLABLE inline float cube(float x) { return x * x * x; }
WEFT_CALLABLE inline void adj_cube(float x, float &adj_x, float adj_result) { adj_x += 3.0f * x * x * adj_result; }
WEFT_CALLABLE inline float lying(float x) { return 2.0f * x; }
WEFT_CALLABLE inline void adj_lying(float x, double &adj_x, float adj_result) { adj_x += 2.0 * adj_result; (void)x; }
}
)";
    r.add(o);
}

WEFT_PLUGIN("wt_adjoint", "1.0.0", init)
