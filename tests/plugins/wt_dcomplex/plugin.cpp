// Differentiable native types: wt_dcomplex::Complex (two floats) carries a
// gradient, added field by field; wt_dcomplex::Polar (radius, angle) names
// its own accumulate function. Builtins over them have gradient contracts:
// dc_abs(z) = |z|, dc_mul(a, b) = a * b, dc_polar(z) = (|z|, arg z),
// dc_radius(p).
#include <weft/plugin.hpp>

namespace wt_dcomplex {
struct Complex {
    float re, im;
};
struct Polar {
    float r, theta;
};
} // namespace wt_dcomplex
WEFT_KERNEL_TYPE(wt_dcomplex::Complex, "wt_dcomplex::Complex")
WEFT_KERNEL_TYPE(wt_dcomplex::Polar, "wt_dcomplex::Polar")

static void init(weft::plugin::Registrar &r) {
    using wt_dcomplex::Complex;
    using wt_dcomplex::Polar;
    r.add(weft::plugin::NativeType<Complex>("wt_dcomplex::Complex", {WEFT_FIELD(Complex, re), WEFT_FIELD(Complex, im)})
              .expose_all()
              .aggregate()
              .differentiable());
    r.add(weft::plugin::NativeType<Polar>("wt_dcomplex::Polar", {WEFT_FIELD(Polar, r), WEFT_FIELD(Polar, theta)})
              .expose_all()
              .aggregate()
              .differentiable("wt_dcomplex::polar_accumulate"));
    using weft::plugin::Adjoint;
    r.builtin<float(Complex)>("dc_abs", {"z"}, "wt_dcomplex::cabs", "|z|.", Adjoint{"wt_dcomplex::adj_cabs"});
    r.builtin<Complex(Complex, Complex)>("dc_mul", {"a", "b"}, "wt_dcomplex::cmul", "a * b.",
                                         Adjoint{"wt_dcomplex::adj_cmul"});
    r.builtin<Polar(Complex)>("dc_polar", {"z"}, "wt_dcomplex::polar", "z as radius and angle.",
                              Adjoint{"wt_dcomplex::adj_polar"});
    r.builtin<float(Polar)>("dc_radius", {"p"}, "wt_dcomplex::radius", "The radius.",
                            Adjoint{"wt_dcomplex::adj_radius"});
    weft::plugin::BuildOptions o;
    o.cpu_preamble = o.cuda_preamble = R"(namespace wt_dcomplex {
struct Complex { float re, im; };
struct Polar { float r, theta; };
WEFT_CALLABLE inline float cabs(Complex z) { return weft::sqrt(z.re * z.re + z.im * z.im); }
WEFT_CALLABLE inline void adj_cabs(Complex z, Complex &adj_z, float adj_result) {
    const float n = cabs(z);
    adj_z.re += z.re / n * adj_result;
    adj_z.im += z.im / n * adj_result;
}
WEFT_CALLABLE inline Complex cmul(Complex a, Complex b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
// d(a*b) = da*b + a*db; the adjoint of a is adj_result * conj(b).
WEFT_CALLABLE inline void adj_cmul(Complex a, Complex b, Complex &adj_a, Complex &adj_b, Complex adj_result) {
    adj_a.re += adj_result.re * b.re + adj_result.im * b.im;
    adj_a.im += -adj_result.re * b.im + adj_result.im * b.re;
    adj_b.re += adj_result.re * a.re + adj_result.im * a.im;
    adj_b.im += -adj_result.re * a.im + adj_result.im * a.re;
}
WEFT_CALLABLE inline Polar polar(Complex z) { return {cabs(z), weft::atan2(z.im, z.re)}; }
WEFT_CALLABLE inline void adj_polar(Complex z, Complex &adj_z, Polar adj_result) {
    const float n2 = z.re * z.re + z.im * z.im, n = weft::sqrt(n2);
    adj_z.re += z.re / n * adj_result.r - z.im / n2 * adj_result.theta;
    adj_z.im += z.im / n * adj_result.r + z.re / n2 * adj_result.theta;
}
WEFT_CALLABLE inline float radius(Polar p) { return p.r; }
WEFT_CALLABLE inline void adj_radius(Polar p, Polar &adj_p, float adj_result) { adj_p.r += adj_result; (void)p; }
// Polar's accumulate function: the field-wise sum, as the contract requires.
WEFT_CALLABLE inline void polar_accumulate(Polar &adj, const Polar &v) {
    adj.r += v.r;
    adj.theta += v.theta;
}
}
)";
    r.add(o);
}

WEFT_PLUGIN("wt_dcomplex", "1.0.0", init)
