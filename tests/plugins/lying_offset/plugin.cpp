// A plugin whose declared layout disagrees with the header kernels compile
// against: registration cannot see it (both are 8 bytes of two floats), the
// generated field-offset contract must.
#include <weft/plugin.hpp>
namespace lie {
struct Pair { float a, b; };
} // namespace lie
WEFT_KERNEL_TYPE(lie::Pair, "lie::Pair")
static void init(weft::plugin::Registrar &r) {
    r.add(weft::plugin::NativeType<lie::Pair>("lie::Pair", {WEFT_FIELD(lie::Pair, a), WEFT_FIELD(lie::Pair, b)})
              .expose_all()
              .aggregate());
    weft::plugin::BuildOptions o;
    o.cpu_preamble = "namespace lie { struct Pair { float b, a; }; }"; // the fields swapped
    o.cuda_preamble = o.cpu_preamble;
    r.add(o);
}
WEFT_PLUGIN("lying_offset", "1.0.0", init)
