// Disjoint rows: the vectorized row loop of an N-D kernel needs, for every
// array it writes and every other array it reads, a run-time test that the two
// row ranges do not overlap. Those tests depend on the row, so they run once
// per row (on a 160^3 stencil, whose rows are 160 elements, 14% of all the
// instructions). When a launch's arrays are pairwise
// disjoint, tested once per launch, the row loop runs instead in a function
// whose array data pointers are `__restrict` parameters: the compiler then
// knows that the arrays do not alias and emits no tests. Arrays that overlap
// (the same array passed twice, overlapping views) take the tested loop.
//
// `__restrict` promises that no memory reached through one pointer is reached
// through anything not derived from it. That holds only when every piece of
// memory the kernel can reach comes from its array parameters; a parameter
// that may carry an address (a 64-bit integer id, a plugin's native type, an
// indexed array's index arrays) excludes the kernel, and so does a call, from
// the kernel or a function it calls, of code weft cannot see into (a plugin's
// builtin, a @wp.func_native snippet), which may keep addresses of its own.
// Internal to codegen.
#pragma once

#include "weft/kernel/ir.hpp"
#include "weft/registry/registry.hpp"
#include "weft/registry/types.hpp"

#include <string>
#include <utility>
#include <vector>

namespace weft::codegen::detail {

namespace disjoint_rows_detail {
/// A value that holds no address: plain scalars (no 64-bit integers, which
/// may be ids of host objects), vectors, matrices, quaternions, transforms,
/// and structs of those.
inline bool addressless(const Type &t) {
    switch (t.kind()) {
    case Type::Kind::Scalar: return t.scalar_type() != Scalar::Int64 && t.scalar_type() != Scalar::UInt64;
    case Type::Kind::Vector:
    case Type::Kind::Matrix:
    case Type::Kind::Quaternion:
    case Type::Kind::Transform: return true;
    case Type::Kind::Struct:
        for (const auto &f : t.layout().fields)
            if (!addressless(f.type)) return false;
        return true;
    default: return false;
    }
}

namespace ir = kernel::ir;

/// Whether evaluating `e` runs only code weft generates: no plugin builtin,
/// no call of a native snippet, directly or through the functions it calls.
inline bool visible(const ir::Module &m, const ir::Expr &e, std::vector<char> &seen);
inline bool visible(const ir::Module &m, const std::vector<ir::StmtPtr> &body, std::vector<char> &seen) {
    for (const ir::StmtPtr &s : body) {
        for (const ir::Expr *e : {s->target.get(), s->value.get(), s->cond.get()})
            if (e && !visible(m, *e, seen)) return false;
        for (const ir::ExprPtr &a : s->args)
            if (!visible(m, *a, seen)) return false;
        if ((s->overload && s->overload->external) || !visible(m, s->body, seen) || !visible(m, s->orelse, seen)) return false;
    }
    return true;
}
inline bool visible(const ir::Module &m, const ir::Expr &e, std::vector<char> &seen) {
    if (e.kind == ir::Expr::Kind::Builtin && (!e.overload || e.overload->external)) return false;
    for (const auto &c : e.chain)
        if (c && c->external) return false;
    if (e.kind == ir::Expr::Kind::Call) {
        if (e.index < 0 || static_cast<std::size_t>(e.index) >= m.functions.size()) return false;
        const std::size_t k = static_cast<std::size_t>(e.index);
        if (!seen[k]) {
            seen[k] = 1;
            const ir::Function &f = m.functions[k];
            if (f.is_native || !visible(m, f.body, seen)) return false;
        }
    }
    for (const ir::ExprPtr &a : e.args)
        if (!visible(m, *a, seen)) return false;
    return true;
}
} // namespace disjoint_rows_detail

/// Whether kernel `f` of `m`, with these entry parameters, may run its rows
/// with `__restrict` array pointers once its arrays proved disjoint: two
/// arrays or more, plain ones (not indexed) of addressless elements, every
/// other parameter addressless, and only code weft generates.
inline bool disjoint_rows_apply(const kernel::ir::Module &m, const kernel::ir::Function &f,
                                const std::vector<std::pair<std::string, Type>> &params) {
    using disjoint_rows_detail::addressless;
    int arrays = 0;
    for (const auto &p : params) {
        const Type &t = p.second;
        if (t.kind() == Type::Kind::Array) {
            if (t.is_indexed_array() || !addressless(t.element())) return false;
            ++arrays;
        } else if (!addressless(t)) return false;
    }
    if (arrays < 2 || f.is_native) return false;
    std::vector<char> seen(m.functions.size(), 0);
    return disjoint_rows_detail::visible(m, f.body, seen);
}

} // namespace weft::codegen::detail
