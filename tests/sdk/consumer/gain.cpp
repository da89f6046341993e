#include <weft/plugin.hpp>

// A vendor's differentiable native type: a phasor whose gradient flows
// through its fields and through vendor_gain_power's gradient contract.
namespace vendor_gain {
struct Phasor {
    float amplitude, phase;
};
} // namespace vendor_gain
WEFT_KERNEL_TYPE(vendor_gain::Phasor, "vendor_gain::Phasor")

static void init(weft::plugin::Registrar &r) {
    using vendor_gain::Phasor;
    r.builtin<float(float, float)>("vendor_gain_apply", {"x", "gain"}, "vendor_gain::apply", "x * gain");
    r.add(weft::plugin::NativeType<Phasor>("vendor_gain::Phasor",
                                           {WEFT_FIELD(Phasor, amplitude), WEFT_FIELD(Phasor, phase)})
              .expose_all()
              .aggregate()
              .differentiable());
    r.builtin<float(Phasor)>("vendor_gain_power", {"p"}, "vendor_gain::power", "amplitude squared",
                             weft::plugin::Adjoint{"vendor_gain::adj_power"});
    weft::plugin::BuildOptions o;
    o.cpu_preamble = o.cuda_preamble = R"(namespace vendor_gain {
WEFT_CALLABLE inline float apply(float x, float gain) { return x * gain; }
struct Phasor { float amplitude, phase; };
WEFT_CALLABLE inline float power(Phasor p) { return p.amplitude * p.amplitude; }
WEFT_CALLABLE inline void adj_power(Phasor p, Phasor &adj_p, float adj_result) { adj_p.amplitude += 2.0f * p.amplitude * adj_result; }
}
)";
    r.add(o);
}

WEFT_PLUGIN("vendor_gain", "2.1.0", init)
