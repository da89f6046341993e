// Must not compile: three doubles (24 bytes) named as vec3 (three float32, 12
// bytes). Kernels would pass 12 bytes where the native function reads 24.
#include <weft/plugin.hpp>

namespace acme {
struct double3 {
    double x, y, z;
};
} // namespace acme

WEFT_KERNEL_TYPE(acme::double3, "vec3")

int main() { return weft::plugin::kernel_type_name<acme::double3>()[0]; }
