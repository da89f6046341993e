// Deferred atomics: a reduction written the Warp way,
//
//     wp.atomic_add(total, 0, x[i])
//
// is an atomic read-modify-write of one address per element. On the CPU that
// is a compare-exchange loop per element for floats, and with two threads
// the address's cache line moves between cores on every add: the launch ran
// 3.4x slower on two threads than on one (bench/cpu_kernels,
// reduce_sum_speedup_2_threads 0.30).
//
// When nothing in the launch can see the array between those adds, a worker
// sums its adds privately, per element address, and applies each sum with one
// atomic at the end of its chunk of the launch (weft::rt::deferred_adds). The
// launch's result is the same up to the order of the additions, which atomics
// from several threads leave open anyway: integers wrap, so their sums are
// exact; float sums are associated per chunk, not per element.
//
// Nothing can see the array when
//  - every use of the parameter in the kernel is the array of an atomic_add
//    or atomic_sub whose result is discarded: no read, store, other atomic,
//    shape, view, or call that passes it on;
//  - its elements are 32- or 64-bit integers or float32/float64 (float16
//    sums would round differently enough to matter);
//  - the kernel runs only code weft generates (no plugin builtin or native
//    snippet, which may hold addresses of their own), and no parameter
//    carries an array inside a struct;
//  - no `while` loop runs in the kernel or a function it calls: a thread that
//    waits for another (`while wp.atomic_add(ack, 0, 0) == 0: pass`) after an
//    add that the other waits for would wait for the end of its own chunk,
//    forever; bounded `for` loops end whatever they see;
//  - at run time, the array shares no byte with any other array parameter
//    (tested once per chunk; otherwise each add is applied at once).
// Others see the sums at the end of each chunk, not element by element: the
// host polling a progress counter during a launch on a stream sees it move
// in steps.
// Debug builds (bounds-checked atomics) and backward passes are left as they
// are. Internal to codegen.
#pragma once

#include "disjoint_rows.hpp"

#include "weft/kernel/ir.hpp"
#include "weft/registry/types.hpp"

#include <vector>

namespace weft::codegen::detail {

namespace deferred_atomics_detail {
namespace ir = kernel::ir;

inline bool summable(const Type &t) {
    if (!t.is_scalar()) return false;
    switch (t.scalar_type()) {
    case Scalar::Int32:
    case Scalar::Int64:
    case Scalar::UInt32:
    case Scalar::UInt64:
    case Scalar::Float32:
    case Scalar::Float64: return true;
    default: return false;
    }
}

inline bool carries_array(const Type &t) {
    if (t.kind() == Type::Kind::Array) return true;
    if (t.kind() == Type::Kind::Struct)
        for (const auto &f : t.layout().fields)
            if (carries_array(f.type)) return true;
    if (t.kind() == Type::Kind::Tuple)
        for (const Type &e : t.elements())
            if (carries_array(e)) return true;
    return false;
}

/// Whether `s` is `atomic_add(p, ...)` or `atomic_sub(p, ...)` evaluated for effect.
inline bool deferrable_statement(const ir::Stmt &s, int p) {
    if (s.kind != ir::Stmt::Kind::Eval || !s.value || s.value->kind != ir::Expr::Kind::Intrinsic) return false;
    const ir::Expr &e = *s.value;
    if (e.intrinsic != ir::Intrinsic::AtomicAdd && e.intrinsic != ir::Intrinsic::AtomicSub) return false;
    return !e.args.empty() && e.args[0]->kind == ir::Expr::Kind::Param && e.args[0]->index == p;
}

/// Whether every use of parameter `p` in `body` is the array of a deferrable statement.
inline bool only_deferrable_uses(const std::vector<ir::StmtPtr> &body, int p) {
    bool ok = true;
    ir::for_each_stmt(body, [&](const ir::Stmt &s) {
        if (!ok) return;
        const bool deferrable = deferrable_statement(s, p);
        // The statement's own expressions (nested bodies are visited as statements).
        auto check = [&](const ir::Expr &root) {
            ir::for_each_expr(root, [&](const ir::Expr &e) {
                if (e.kind == ir::Expr::Kind::Param && e.index == p && !(deferrable && &e == s.value->args[0].get()))
                    ok = false;
            });
        };
        for (const ir::ExprPtr *e : {&s.target, &s.value, &s.cond})
            if (*e) check(**e);
        for (const ir::ExprPtr &a : s.args) check(*a);
    });
    return ok;
}

/// Whether `e` may differ between neighbouring elements of a row: it reads
/// an array element, calls a user function, takes tid() whole (a 1-D
/// launch's index), or reads a local in `varying`.
inline bool varies(const ir::Expr &e, const std::vector<bool> &varying) {
    bool out = false;
    ir::for_each_expr(e, [&](const ir::Expr &x) {
        switch (x.kind) {
        case ir::Expr::Kind::Local: out = out || varying[static_cast<std::size_t>(x.index)]; break;
        case ir::Expr::Kind::Call: out = true; break;
        case ir::Expr::Kind::Intrinsic: out = out || x.intrinsic == ir::Intrinsic::Tid; break;
        case ir::Expr::Kind::Index: out = out || x.args[0]->type.kind() == Type::Kind::Array; break;
        default: break;
        }
    });
    return out;
}
} // namespace deferred_atomics_detail

/// The locals of kernel `f` that may differ between neighbouring elements of
/// a row (deferred_atomics_detail::varies), to a fixed point: an N-D
/// launch's innermost tid() component, loop counters, and what is computed
/// from those or from array elements. Data flow only: a bin chosen by a
/// branch (`if x[i] > 0: b = 1`) is not seen to vary, and its adds keep the
/// register path (correct either way; only the speed differs).
inline std::vector<bool> varying_locals(const kernel::ir::Function &f) {
    namespace ir = kernel::ir;
    using deferred_atomics_detail::varies;
    std::vector<bool> varying(f.locals.size(), false);
    for (bool changed = true; changed;) {
        changed = false;
        auto mark = [&](int local) {
            if (local < 0 || varying[static_cast<std::size_t>(local)]) return;
            varying[static_cast<std::size_t>(local)] = true;
            changed = true;
        };
        ir::for_each_stmt(f.body, [&](const ir::Stmt &s) {
            using K = ir::Stmt::Kind;
            switch (s.kind) {
            case K::Declare:
            case K::Assign:
                if (s.value && varies(*s.value, varying)) mark(s.index);
                break;
            case K::For: mark(s.index); break;
            case K::Unpack:
                if (!s.value || s.targets.empty()) break;
                if (s.value->kind == ir::Expr::Kind::Intrinsic && s.value->intrinsic == ir::Intrinsic::Tid)
                    mark(s.targets.back()); // the outer components hold for a row
                else if (varies(*s.value, varying))
                    for (int t : s.targets) mark(t);
                break;
            case K::Store:
            case K::AugAssign: {
                // A write into part of a local (v.x = ..., m[i] += ...) changes the local.
                const ir::Expr *root = s.target.get();
                while (root && (root->kind == ir::Expr::Kind::Field || root->kind == ir::Expr::Kind::Index))
                    root = root->args[0].get();
                if (root && root->kind == ir::Expr::Kind::Local && s.value &&
                    (varies(*s.value, varying) || varies(*s.target, varying)))
                    mark(root->index);
                break;
            }
            default: break;
            }
        });
    }
    return varying;
}

/// Whether deferred atomic `e` (atomic_add(arr, i..., v)) may take a
/// different element from one element of a row to the next: a histogram's
/// bin, a scatter by index. Those go to a private copy of the array when it
/// is small (deferred_adds::scatter); the others (a total, a row's sum) keep
/// their sum in a register while the element stays the same.
inline bool scattered(const kernel::ir::Expr &e, const std::vector<bool> &varying) {
    for (std::size_t i = 1; i + 1 < e.args.size(); ++i)
        if (deferred_atomics_detail::varies(*e.args[i], varying)) return true;
    return false;
}

/// Whether kernel `f` of `m` (one of its functions), or a function it calls, has a `while` loop.
inline bool may_wait(const kernel::ir::Module &m, const kernel::ir::Function &f) {
    namespace ir = kernel::ir;
    for (std::size_t i : ir::reached_functions(m, {static_cast<std::size_t>(&f - m.functions.data())})) {
        bool found = false;
        ir::for_each_stmt(m.functions[i].body, [&](const ir::Stmt &s) {
            if (s.kind == ir::Stmt::Kind::While) found = true;
        });
        if (found) return true;
    }
    return false;
}

/// The parameters of kernel `f` of `m` (indices into f.params) whose atomic
/// adds a CPU worker may sum privately and apply once per chunk (see above).
inline std::vector<int> deferred_atomic_params(const kernel::ir::Module &m, const kernel::ir::Function &f) {
    using namespace deferred_atomics_detail;
    std::vector<int> out;
    if (!f.is_kernel || f.is_native || f.abi != ir::EntryPointAbi::Warp) return out;
    for (const ir::Variable &p : f.params) {
        const Type &t = p.type;
        if (t.kind() == Type::Kind::Array ? t.is_indexed_array() || carries_array(t.element()) : carries_array(t))
            return out;
    }
    for (std::size_t i = 0; i < f.params.size(); ++i) {
        const Type &t = f.params[i].type;
        if (t.kind() == Type::Kind::Array && summable(t.element()) &&
            only_deferrable_uses(f.body, static_cast<int>(i)))
            out.push_back(static_cast<int>(i));
    }
    // Only a kernel with something to defer pays for the walk over what it reaches.
    if (!out.empty() && (!runs_only_generated_code(m, f) || may_wait(m, f))) out.clear();
    return out;
}

} // namespace weft::codegen::detail
