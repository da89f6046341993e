// The control for kernel_type_size.cpp: the same with a matching size compiles,
// so the failure there is the size check, not the test's setup.
#include <weft/plugin.hpp>

namespace acme {
struct float3 {
    float x, y, z;
};
} // namespace acme

WEFT_KERNEL_TYPE(acme::float3, "vec3")

int main() { return weft::plugin::kernel_type_name<acme::float3>()[0] == 'v' ? 0 : 1; }
