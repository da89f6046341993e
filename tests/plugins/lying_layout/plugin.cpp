// Two types whose registered description disagrees with the header kernels
// compile against (the preamble): registration cannot see it, the generated
// ABI contract must, on both backends.
#include <weft/plugin.hpp>
namespace lay {
struct Typed { float a, b; };  // the header says `int a`
struct Sized { float x, y; };  // the header adds a third float
} // namespace lay
WEFT_KERNEL_TYPE(lay::Typed, "lay::Typed")
WEFT_KERNEL_TYPE(lay::Sized, "lay::Sized")
static void init(weft::plugin::Registrar &r) {
    r.add(weft::plugin::NativeType<lay::Typed>("lay::Typed", {WEFT_FIELD(lay::Typed, a), WEFT_FIELD(lay::Typed, b)})
              .expose_all()
              .aggregate());
    r.add(weft::plugin::NativeType<lay::Sized>("lay::Sized", {WEFT_FIELD(lay::Sized, x), WEFT_FIELD(lay::Sized, y)})
              .expose_all()
              .aggregate());
    weft::plugin::BuildOptions o;
    o.cpu_preamble = "namespace lay { struct Typed { int a; float b; }; struct Sized { float x, y, z; }; }";
    o.cuda_preamble = o.cpu_preamble;
    r.add(o);
}
WEFT_PLUGIN("lying_layout", "1.0.0", init)
