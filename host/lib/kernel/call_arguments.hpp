// Python's binding of a call's arguments to parameter slots, shared by the
// checker (function defaults, keyword calls of builtins) and the parser
// (kernel factory calls). Internal to the front end.
#pragma once

#include "weft/kernel/ast.hpp"

#include <string>
#include <vector>

namespace weft::kernel::detail {

struct ArgumentSlots {
    enum class Problem { None, TooMany, UnknownKeyword, Repeated };
    std::vector<const ast::Expr *> slots; // per parameter: the argument given, or null
    Problem problem = Problem::None;
    const ast::Keyword *keyword = nullptr; // the unknown or repeated keyword
};

/// Positional arguments first, then each keyword by name. Stops at the first
/// problem: too many positional arguments, an unknown keyword, or one that
/// fills a slot twice.
ArgumentSlots place_arguments(const ast::Expr &call, const std::vector<std::string> &params);

std::vector<std::string> param_names(const std::vector<ast::Param> &params);

} // namespace weft::kernel::detail
