// Functions weft brings written in the kernel language itself: Warp's
// warp.math helpers (wp.quat_to_rpy, wp.norm_l1, wp.transform_compose, ...),
// which Warp defines as @wp.func in Python rather than as builtins.
#pragma once

#include "weft/kernel/ast.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace weft::kernel::detail {

/// The kernel-language text of warp.math (bundled/warp_math.py, embedded).
std::string_view warp_math_source();

/// Adds to `tree` the definitions of the bundled functions it calls (as
/// `wp.name(...)` or `name(...)`) and does not define itself, with the
/// bundled functions those call. Each copy is located at the module's first
/// call of it (a dependency at its caller's), so a message about a call that
/// does not fit points at the user's line.
void add_bundled_functions(ast::Module &tree);

} // namespace weft::kernel::detail
