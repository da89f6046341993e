// The host values are the kernel types' layouts: tied here to the runtime
// headers that generated code compiles against, so a change on either side
// is a build error, not arrays read with the wrong stride.
#include "weft/runtime/values.hpp"

#include "weft/rt/linalg.h"

#include <cstddef>
#include <type_traits>

namespace weft {
namespace {

template <class Host, class Kernel> constexpr bool same_layout() {
    return sizeof(Host) == sizeof(Kernel) && alignof(Host) == alignof(Kernel) &&
           std::is_trivially_copyable_v<Host> && std::is_standard_layout_v<Host>;
}

static_assert(same_layout<values::vec2f, weft::vec2f>() && same_layout<values::vec3f, weft::vec3f>() &&
              same_layout<values::vec4f, weft::vec4f>());
static_assert(same_layout<values::vec3d, weft::vec3d>() && same_layout<values::vec3i, weft::vec3i>());
static_assert(same_layout<values::mat22f, weft::mat22f>() && same_layout<values::mat33f, weft::mat33f>() &&
              same_layout<values::mat44d, weft::mat44d>() && same_layout<values::mat<2, 3, float>, weft::mat23f>());
static_assert(same_layout<values::quatf, weft::quatf>() && same_layout<values::quatd, weft::quatd>());
static_assert(same_layout<values::transformf, weft::transformf>() &&
              same_layout<values::transformd, weft::transformd>());
// Component order: a matrix row by row, a quaternion x y z w, a transform p then q.
static_assert(offsetof(values::mat33f, rows) == offsetof(weft::mat33f, c));
static_assert(offsetof(values::quatf, w) == 3 * sizeof(float));
static_assert(offsetof(values::transformf, p) == offsetof(weft::transformf, p) &&
              offsetof(values::transformf, q) == offsetof(weft::transformf, q));
static_assert(offsetof(values::transformd, q) == offsetof(weft::transformd, q));

} // namespace
} // namespace weft
