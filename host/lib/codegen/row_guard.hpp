// Row guards: a kernel whose work sits under one bounds test on its innermost
// thread index, e.g.
//
//     i, j = wp.tid()
//     if i > 0 and j > 0 and i < n - 1 and j < m - 1:
//         out[i, j] = ...
//
// runs on the CPU as rows of the launch grid. Tested per element, the test on
// `j` turns each store into a conditional one, which the loop vectorizer
// cannot handle without masked stores. For such kernels codegen evaluates the
// test once per row instead: the terms that do not depend on `j` decide
// whether the row runs at all, and the terms `j OP bound` clip the row's `j`
// range; inside that range the body runs without the test. Only lowered
// statements that cannot fault or have effects may precede the test (they run
// once per row in the guard and again per element), so skipping the elements
// outside the range changes nothing observable. Internal to codegen.
#pragma once

#include "weft/kernel/ir.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace weft::codegen::detail {

/// How a term of the test bounds the innermost index j: j OP bound, with the
/// operands already swapped into that order (`0 < j` is `j > 0`).
enum class RowOp { Lt, Le, Gt, Ge, Eq };
struct RowBound {
    RowOp op;
    const kernel::ir::Expr *bound; // an atom free of j
};
/// One term of the test: the statement assigning it to the test's flag, and
/// the bound it puts on j (none: the term does not depend on j).
struct RowTerm {
    const kernel::ir::Stmt *stmt;
    std::optional<RowBound> bound;
};

struct RowGuard {
    int j = -1;                 // the local holding the innermost thread index (assigned once)
    std::size_t test = 0;       // index in the kernel's body of the guarded `if` (its last statement)
    int flag = -1;              // the lowered test's bool temporary (the `if`'s condition)
    long long j_min = 0;        // j >= j_min wherever the test passed (literal lower bounds), >= 0
    std::vector<RowTerm> terms; // in evaluation order
    /// Lower bounds the test's literal terms put on tid() components assigned
    /// once (j's included): where the test passed, local >= bound.
    std::vector<std::pair<int, long long>> minimums;

    const RowTerm *term(const kernel::ir::Stmt &s) const {
        for (const RowTerm &t : terms)
            if (t.stmt == &s) return &t;
        return nullptr;
    }
};

namespace row_guard_detail {
namespace ir = kernel::ir;
using K = ir::Expr::Kind;
using S = ir::Stmt::Kind;

inline bool core_op(const ir::Expr &e, const char *name) {
    return e.kind == K::Builtin && e.overload && !e.overload->external && e.overload->native_name == name;
}

inline bool uses_local(const ir::Expr &e, const std::vector<bool> &set) {
    if (e.kind == K::Local) return set[static_cast<std::size_t>(e.index)];
    for (const ir::ExprPtr &a : e.args)
        if (uses_local(*a, set)) return true;
    return false;
}

/// Evaluating `e` twice, or for elements whose test fails, is unobservable:
/// no effects, no faults (no division, no array element, no call).
inline bool harmless(const ir::Expr &e) {
    switch (e.kind) {
    case K::Literal:
    case K::Local:
    case K::Param:
    case K::Constant:
    case K::Shape: break;
    case K::Intrinsic:
        if (e.intrinsic != ir::Intrinsic::Tid && e.intrinsic != ir::Intrinsic::Len) return false;
        break;
    case K::Field:
        if (e.args[0]->type.kind() == Type::Kind::Array) return false;
        break;
    case K::Cast:
        // Float to int conversion of an out-of-range value is undefined in C++.
        if (!e.args[0]->type.is_integer() && !e.args[0]->type.is_bool()) return false;
        break;
    case K::Builtin: {
        static const char *const ops[] = {"weft::add", "weft::sub", "weft::mul", "weft::min", "weft::max",
                                          "weft::lt",  "weft::le",  "weft::gt",  "weft::ge",  "weft::eq",
                                          "weft::ne",  "weft::neg", "weft::pos"};
        bool known = false;
        for (const char *op : ops) known = known || core_op(e, op);
        if (!known || e.type.kind() != Type::Kind::Scalar) return false;
        break;
    }
    default: return false;
    }
    for (const ir::ExprPtr &a : e.args)
        if (!harmless(*a)) return false;
    return true;
}

inline bool is_tid(const ir::Expr *e) { return e && e->kind == K::Intrinsic && e->intrinsic == ir::Intrinsic::Tid; }

inline void count_assignments(const std::vector<ir::StmtPtr> &body, std::vector<int> &count) {
    for (const ir::StmtPtr &s : body) {
        if (s->kind == S::Declare || s->kind == S::Assign || s->kind == S::For) ++count[static_cast<std::size_t>(s->index)];
        if (s->kind == S::Unpack)
            for (int t : s->targets) ++count[static_cast<std::size_t>(t)];
        count_assignments(s->body, count);
        count_assignments(s->orelse, count);
    }
}
} // namespace row_guard_detail

/// The bound a term `flag = cmp(a, b)` puts on j, or nullopt when the term is
/// not `j OP atom` / `atom OP j` over int32 with an atom free of j.
inline std::optional<RowBound> row_bound(const kernel::ir::Expr &e, int j, const std::vector<bool> &depends_on_j) {
    using namespace row_guard_detail;
    static const struct {
        const char *name;
        RowOp op, swapped;
    } cmps[] = {{"weft::lt", RowOp::Lt, RowOp::Gt},
                {"weft::le", RowOp::Le, RowOp::Ge},
                {"weft::gt", RowOp::Gt, RowOp::Lt},
                {"weft::ge", RowOp::Ge, RowOp::Le},
                {"weft::eq", RowOp::Eq, RowOp::Eq}};
    for (const auto &c : cmps) {
        if (!core_op(e, c.name) || e.args.size() != 2) continue;
        const ir::Expr &a = *e.args[0], &b = *e.args[1];
        if (a.type != Type::scalar(Scalar::Int32) || b.type != a.type) return std::nullopt;
        const auto is_j = [&](const ir::Expr &x) { return x.kind == K::Local && x.index == j; };
        if (is_j(a) && b.is_atom() && !uses_local(b, depends_on_j)) return RowBound{c.op, &b};
        if (is_j(b) && a.is_atom() && !uses_local(a, depends_on_j)) return RowBound{c.swapped, &a};
        return std::nullopt;
    }
    return std::nullopt;
}

/// The kernel's row guard, when its body has the shape described above.
inline std::optional<RowGuard> find_row_guard(const kernel::ir::Function &f) {
    using namespace row_guard_detail;
    if (!f.is_kernel || f.tid_dims < 1 || f.body.empty()) return std::nullopt;
    RowGuard g;
    g.test = f.body.size() - 1;
    const ir::Stmt &test = *f.body[g.test];
    if (test.kind != S::If || !test.orelse.empty() || !test.cond || test.cond->kind != K::Local) return std::nullopt;
    g.flag = test.cond->index;
    if (!f.locals[static_cast<std::size_t>(g.flag)].temporary) return std::nullopt;

    std::vector<int> count(f.locals.size(), 0);
    count_assignments(f.body, count);
    // j: the last tid() component (or the tid() value), assigned once, before the test.
    for (std::size_t k = 0; k < g.test; ++k) {
        const ir::Stmt &s = *f.body[k];
        if (s.kind == S::Unpack && is_tid(s.value.get()) && !s.targets.empty()) g.j = s.targets.back();
        if ((s.kind == S::Declare || s.kind == S::Assign) && is_tid(s.value.get())) g.j = s.index;
    }
    if (g.j < 0 || count[static_cast<std::size_t>(g.j)] != 1) return std::nullopt;

    // The statements before the test: harmless assignments, and the lowered
    // `and` chain: flag = t1; if flag: (harmless...; flag = t2); ...
    std::vector<bool> depends_on_j(f.locals.size(), false);
    depends_on_j[static_cast<std::size_t>(g.j)] = true;
    int flag_assignments = 0;
    bool ok = true;
    // Components of tid() assigned once: a literal bound on one holds in the body.
    std::vector<bool> component(f.locals.size(), false);
    for (std::size_t k = 0; k < g.test; ++k)
        if (f.body[k]->kind == S::Unpack && is_tid(f.body[k]->value.get()))
            for (int t : f.body[k]->targets)
                if (count[static_cast<std::size_t>(t)] == 1) component[static_cast<std::size_t>(t)] = true;
    const auto note_minimum = [&](const ir::Expr &value) {
        std::vector<bool> none(f.locals.size(), false);
        for (int local = 0; local < static_cast<int>(f.locals.size()); ++local) {
            if (!component[static_cast<std::size_t>(local)] || local == g.j) continue;
            const std::optional<RowBound> b = row_bound(value, local, none);
            if (!b || b->bound->kind != K::Literal || !b->bound->value || b->bound->value->int_components.empty())
                continue;
            const long long v = static_cast<long long>(b->bound->value->int_components[0]);
            if (b->op == RowOp::Gt) g.minimums.emplace_back(local, v + 1);
            if (b->op == RowOp::Ge || b->op == RowOp::Eq) g.minimums.emplace_back(local, v);
        }
    };
    const auto term = [&](const ir::Stmt &s) {
        const ir::Expr &value = *s.value;
        ++flag_assignments;
        if (!harmless(value)) return false;
        if (!uses_local(value, depends_on_j)) {
            g.terms.push_back({&s, std::nullopt});
            note_minimum(value);
            return true;
        }
        const std::optional<RowBound> b = row_bound(value, g.j, depends_on_j);
        if (!b) return false;
        g.terms.push_back({&s, b});
        const auto &lit = *b->bound;
        if (lit.kind == K::Literal && lit.value && !lit.value->int_components.empty()) {
            const long long v = static_cast<long long>(lit.value->int_components[0]);
            if (b->op == RowOp::Gt && v + 1 > g.j_min) g.j_min = v + 1;
            if ((b->op == RowOp::Ge || b->op == RowOp::Eq) && v > g.j_min) g.j_min = v;
        }
        return true;
    };
    const auto plain = [&](const ir::Stmt &s) {
        if (s.kind == S::Unpack) return is_tid(s.value.get());
        if (s.kind != S::Declare && s.kind != S::Assign) return false;
        if (s.index == g.flag) return false;
        if (is_tid(s.value.get())) return true;
        if (!harmless(*s.value)) return false;
        if (uses_local(*s.value, depends_on_j)) depends_on_j[static_cast<std::size_t>(s.index)] = true;
        return true;
    };
    for (std::size_t k = 0; k < g.test && ok; ++k) {
        const ir::Stmt &s = *f.body[k];
        if ((s.kind == S::Declare || s.kind == S::Assign) && s.index == g.flag) {
            ok = flag_assignments == 0 && term(s);
        } else if (s.kind == S::If) {
            // A link of the chain: runs when the terms so far passed, ends with the next term.
            ok = flag_assignments > 0 && s.orelse.empty() && s.cond && s.cond->kind == K::Local &&
                 s.cond->index == g.flag && !s.body.empty();
            for (std::size_t b = 0; ok && b + 1 < s.body.size(); ++b) ok = plain(*s.body[b]);
            const ir::Stmt *last = ok ? s.body.back().get() : nullptr;
            ok = ok && (last->kind == S::Declare || last->kind == S::Assign) && last->index == g.flag &&
                 term(*last);
        } else {
            ok = plain(s);
        }
    }
    // Every assignment of the flag is a term seen above (none in the body it guards).
    if (!ok || flag_assignments == 0 || count[static_cast<std::size_t>(g.flag)] != flag_assignments) return std::nullopt;
    if (g.j_min > 0) g.minimums.emplace_back(g.j, g.j_min);
    return g;
}

} // namespace weft::codegen::detail
