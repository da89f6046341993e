// The control for kernel_type_size.cpp: the same with a matching size compiles,
// so the failure there is the size check, not the test's setup.
#include <weft/plugin.hpp>

namespace acme {
struct float3 {
    float x, y, z;
};
} // namespace acme

WEFT_KERNEL_TYPE(acme::float3, "vec3")

// A native type whose name starts with "array" is not an array view: the SDK
// cannot size it, so it checks nothing (it took it for a 64-byte view).
namespace arrays {
struct Grid {
    int n;
};
} // namespace arrays
WEFT_KERNEL_TYPE(arrays::Grid, "arrays::Grid")
static_assert(weft::plugin::detail::builtin_kernel_type_size("arrays::Grid") == 0, "not an array type");
static_assert(weft::plugin::detail::builtin_kernel_type_size("array(float32)") == 64, "the array view");
static_assert(weft::plugin::detail::builtin_kernel_type_size("array2d(vec3)") == 64, "the array view");

int main() { return weft::plugin::kernel_type_name<acme::float3>()[0] == 'v' ? 0 : 1; }
