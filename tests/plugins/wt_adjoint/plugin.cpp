// Gradient contracts for plugin builtins: _adj_cube(x) = x^3 with its adjoint,
// _adj_lying(x) whose declared adjoint takes double where float is due, and
// _adj_cabs(z) = |z| over the native (not differentiable) type wt_adjoint::Complex,
// whose contract writes an adjoint for z that has nowhere to go.
#include <weft/plugin.hpp>

namespace wt_adjoint {
struct Complex {
    float re, im;
};
} // namespace wt_adjoint
WEFT_KERNEL_TYPE(wt_adjoint::Complex, "wt_adjoint::Complex")

static void init(weft::plugin::Registrar &r) {
    using wt_adjoint::Complex;
    r.add(weft::plugin::NativeType<Complex>("wt_adjoint::Complex", {WEFT_FIELD(Complex, re), WEFT_FIELD(Complex, im)})
              .expose_all()
              .aggregate());
    r.builtin<float(Complex)>("_adj_cabs", {"z"}, "wt_adjoint::cabs", "|z|.", weft::plugin::Adjoint{"wt_adjoint::adj_cabs"});
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
struct Complex { float re, im; };
WEFT_CALLABLE inline float cabs(Complex z) { return weft::sqrt(z.re * z.re + z.im * z.im); }
WEFT_CALLABLE inline void adj_cabs(Complex z, Complex &adj_z, float adj_result) {
    const float n = cabs(z);
    adj_z.re += z.re / n * adj_result;
    adj_z.im += z.im / n * adj_result;
}
}
)";
    r.add(o);
}

WEFT_PLUGIN("wt_adjoint", "1.0.0", init)
