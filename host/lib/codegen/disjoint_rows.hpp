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

/// Whether running kernel `k` of `m` runs only code weft generates: no
/// plugin builtin, no native snippet, in it or in any function it reaches.
inline bool visible(const ir::Module &m, std::size_t k) {
    for (std::size_t i : ir::reached_functions(m, {k})) {
        const ir::Function &f = m.functions[i];
        if (f.is_native) return false;
        bool ok = true;
        ir::for_each_stmt(f.body, [&](const ir::Stmt &s) {
            if (s.overload && s.overload->external) ok = false;
        });
        for (const ir::StmtPtr &s : f.body)
            ir::for_each_expr(*s, [&](const ir::Expr &e) {
                if (e.kind == ir::Expr::Kind::Builtin && (!e.overload || e.overload->external)) ok = false;
                if (e.kind == ir::Expr::Kind::Call &&
                    (e.index < 0 || static_cast<std::size_t>(e.index) >= m.functions.size()))
                    ok = false;
                for (const auto &c : e.chain)
                    if (c && c->external) ok = false;
            });
        if (!ok) return false;
    }
    return true;
}
} // namespace disjoint_rows_detail

/// Whether running kernel `f`, one of `m`'s functions, runs only code weft
/// generates: no plugin builtin, no native snippet, in it or in any function
/// it reaches. Anything else is refused.
inline bool runs_only_generated_code(const kernel::ir::Module &m, const kernel::ir::Function &f) {
    if (m.functions.empty() || &f < m.functions.data() || &f > &m.functions.back()) return false;
    return disjoint_rows_detail::visible(m, static_cast<std::size_t>(&f - m.functions.data()));
}

/// Whether kernel `f` of `m`, with these entry parameters, may run its rows
/// with `__restrict` array pointers once its arrays proved disjoint: two
/// arrays or more, plain ones (not indexed) of addressless elements, every
/// other parameter addressless, and only code weft generates.
inline bool disjoint_rows_apply(const kernel::ir::Module &m, const kernel::ir::Function &f,
                                const std::vector<KernelParam> &params) {
    using disjoint_rows_detail::addressless;
    int arrays = 0;
    for (const auto &p : params) {
        const Type &t = p.type;
        if (t.kind() == Type::Kind::Array) {
            if (t.is_indexed_array() || !addressless(t.element())) return false;
            ++arrays;
        } else if (!addressless(t)) return false;
    }
    return arrays >= 2 && runs_only_generated_code(m, f);
}

} // namespace weft::codegen::detail
