// bench/autodiff's differentiable native type: bench_complex::Complex with
// |z| and z * w and their gradient contracts (bench_autodiff times a kernel
// over it against the same math written on float parts).
#include <weft/plugin.hpp>

namespace bench_complex {
struct Complex {
    float re, im;
};
} // namespace bench_complex
WEFT_KERNEL_TYPE(bench_complex::Complex, "bench_complex::Complex")

static void init(weft::plugin::Registrar &r) {
    using bench_complex::Complex;
    using weft::plugin::Adjoint;
    r.add(weft::plugin::NativeType<Complex>("bench_complex::Complex", {WEFT_FIELD(Complex, re), WEFT_FIELD(Complex, im)})
              .expose_all()
              .aggregate()
              .differentiable());
    r.builtin<float(Complex)>("bc_abs", {"z"}, "bench_complex::cabs", "|z|.", Adjoint{"bench_complex::adj_cabs"});
    r.builtin<Complex(Complex, Complex)>("bc_mul", {"a", "b"}, "bench_complex::cmul", "a * b.",
                                         Adjoint{"bench_complex::adj_cmul"});
    weft::plugin::BuildOptions o;
    o.cpu_preamble = o.cuda_preamble = R"(namespace bench_complex {
struct Complex { float re, im; };
WEFT_CALLABLE inline float cabs(Complex z) { return weft::sqrt(z.re * z.re + z.im * z.im); }
WEFT_CALLABLE inline void adj_cabs(Complex z, Complex &adj_z, float adj_result) {
    const float n = cabs(z);
    adj_z.re += z.re / n * adj_result;
    adj_z.im += z.im / n * adj_result;
}
WEFT_CALLABLE inline Complex cmul(Complex a, Complex b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
WEFT_CALLABLE inline void adj_cmul(Complex a, Complex b, Complex &adj_a, Complex &adj_b, Complex adj_result) {
    adj_a.re += adj_result.re * b.re + adj_result.im * b.im;
    adj_a.im += -adj_result.re * b.im + adj_result.im * b.re;
    adj_b.re += adj_result.re * a.re + adj_result.im * a.im;
    adj_b.im += -adj_result.re * a.im + adj_result.im * a.re;
}
}
)";
    r.add(o);
}

WEFT_PLUGIN("bench_complex", "1.0.0", init)
