// Subscripts that select more than one element, as Warp 1.19 types them:
//  - arrays: fewer indices than dimensions, or slices with run-time bounds,
//    give a view sharing the array's memory (Warp's view(); ir View);
//  - vectors, matrices and quaternions: slices with compile-time bounds give
//    a vector or matrix of the selected components (ir Gather). Warp needs
//    the bounds at compile time because the result's length is part of its type.
#include "checker.hpp"

namespace weft::kernel::detail {

namespace {

using ast::Expr;
using K = ir::Expr::Kind;

/// Python's slice.indices() for a sequence of length n (what Warp's
/// eval_const_slice computes): the positions a constant slice selects.
std::vector<int> slice_positions(std::optional<ir::IntValue> lower, std::optional<ir::IntValue> upper, ir::IntValue step,
                                 int n) {
    const ir::IntValue lo = step > 0 ? 0 : -1, hi = step > 0 ? n : n - 1;
    auto resolve = [&](std::optional<ir::IntValue> v, ir::IntValue fallback) {
        if (!v) return fallback;
        if (*v < 0) return std::max<ir::IntValue>(*v + n, lo);
        return std::min<ir::IntValue>(*v, hi);
    };
    const ir::IntValue start = resolve(lower, step > 0 ? lo : hi), stop = resolve(upper, step > 0 ? hi : lo);
    std::vector<int> out;
    for (ir::IntValue i = start; step > 0 ? i < stop : i > stop; i += step) out.push_back(static_cast<int>(i));
    return out;
}

/// The integer a compile-time constant (literal, module constant) holds.
std::optional<ir::IntValue> constant_int(const Value &v) {
    const ir::Expr &x = *v.expr;
    if ((x.kind == K::Literal || x.kind == K::Constant) && x.value && x.type.is_integer() &&
        !x.value->int_components.empty())
        return x.value->int_components[0];
    return std::nullopt;
}

} // namespace

std::string too_many_indices(const Type &array, std::size_t given) {
    const std::string n = std::to_string(array.ndim());
    return "array of " + n + " dimension" + (array.ndim() == 1 ? "" : "s") + " indexed with " + std::to_string(given) +
           " indexes: give at most " + n + " (fewer give a view of the remaining dimensions)";
}

Value Checker::int32_index(const Expr &e) {
    Value v = expr(e);
    if (!v.ok()) return v;
    settle(v);
    if (!v.type().is_integer()) {
        diags_.error(e.location, "index must be an integer, got '" + v.type().name() + "'");
        return poison();
    }
    const Type i32 = Type::scalar(Scalar::Int32);
    if (v.type() == i32) return v;
    if (const auto c = constant_int(v); c && fits(*c, Scalar::Int32)) {
        auto x = make(K::Literal, i32, e.location);
        x->value = ir::ConstantValue{i32, {static_cast<double>(*c)}, {*c}};
        return Value{std::move(x)};
    }
    auto cast = make(K::Cast, i32, e.location);
    cast->args.push_back(std::move(v.expr));
    return Value{std::move(cast)};
}

Value Checker::array_view(const Expr &e, Value base) {
    const Type t = base.type();
    const std::size_t positions = e.children.size() - 1;
    if (static_cast<int>(positions) > t.ndim()) {
        diags_.error(e.location, too_many_indices(t, positions));
        return poison();
    }
    auto x = make(K::View, t, e.location);
    x->args.push_back(std::move(base.expr));
    x->index = 0;
    int kept = t.ndim() - static_cast<int>(positions);
    bool ok = true;
    auto literal = [&](ir::IntValue v, SourceLocation at) {
        const Type i32 = Type::scalar(Scalar::Int32);
        auto l = make(K::Literal, i32, at);
        l->value = ir::ConstantValue{i32, {static_cast<double>(v)}, {v}};
        return l;
    };
    for (std::size_t p = 0; p < positions; ++p) {
        const Expr &ix = *e.children[p + 1];
        if (ix.kind != Expr::Kind::Slice) {
            Value v = int32_index(ix);
            if (!v.ok()) ok = false;
            else x->args.push_back(std::move(v.expr));
            continue;
        }
        ++kept;
        x->index |= 1 << p;
        std::size_t child = 0;
        for (int part = 0; part < 3; ++part) {
            if (ix.text[static_cast<std::size_t>(part)] != '1') {
                x->args.push_back(literal(part == 0 ? ir::slice_begin : part == 1 ? ir::slice_end : 1, ix.location));
                continue;
            }
            const Expr &bound = *ix.children[child++];
            Value v = int32_index(bound);
            if (!v.ok()) {
                ok = false;
                continue;
            }
            if (part == 2)
                if (const auto c = constant_int(v); c && *c == 0) {
                    diags_.error(bound.location, "slice step cannot be zero: use a positive step, or a negative one to go backwards");
                    ok = false;
                }
            x->args.push_back(std::move(v.expr));
        }
    }
    if (!ok) return poison();
    x->type = Type::array(t.element(), kept);
    return Value{std::move(x)};
}

Value Checker::indexed_view(const Expr &e, Value base) {
    // Warp 1.19 views an indexed array only by leading integer indices (its
    // view() of indexedarray_t takes ints): the result is the indexed array of
    // the remaining dimensions, their index arrays kept.
    const Type t = base.type();
    const std::size_t positions = e.children.size() - 1;
    const auto spelled = [](int n) { return n == 1 ? "i" : n == 2 ? "i, j" : n == 3 ? "i, j, k" : "i, j, k, l"; };
    for (std::size_t p = 0; p < positions; ++p)
        if (e.children[p + 1]->kind == Expr::Kind::Slice) {
            const int n = t.ndim();
            diags_.error(e.children[p + 1]->location,
                         "'" + t.name() + "' cannot be sliced: index its leading dimensions with integers (x[" +
                             spelled(n > 1 ? n - 1 : 1) + "] is a view of the rest), or slice the base array on the host");
            return poison();
        }
    if (static_cast<int>(positions) > t.ndim()) {
        diags_.error(e.location, too_many_indices(t, positions));
        return poison();
    }
    auto x = make(K::View, t, e.location);
    x->args.push_back(std::move(base.expr));
    x->index = 0; // no position is a slice
    bool ok = true;
    for (std::size_t p = 0; p < positions; ++p) {
        Value v = int32_index(*e.children[p + 1]);
        if (!v.ok()) ok = false;
        else x->args.push_back(std::move(v.expr));
    }
    if (!ok) return poison();
    x->type = Type::indexed_array(t.element(), t.ndim() - static_cast<int>(positions));
    note_type(x->type);
    return Value{std::move(x)};
}

Value Checker::composite_slice(const Expr &e, Value base) {
    const Type t = base.type();
    const bool matrix = t.kind() == Type::Kind::Matrix;
    const std::size_t positions = e.children.size() - 1;
    if (positions > (matrix ? 2u : 1u)) {
        diags_.error(e.location, "'" + t.name() + "' cannot be indexed with " + std::to_string(positions) +
                                     " indices; " + (matrix ? "a matrix takes [rows, cols]" : "give one index or slice"));
        return poison();
    }
    const int extent[2] = {t.rows(), matrix ? t.cols() : 1};
    // Per position: the positions a slice selects, or an index (constant, or
    // -1 with the run-time index in `runtime`).
    std::vector<int> picks[2];
    bool sliced[2] = {false, false};
    std::optional<Value> runtime;
    for (std::size_t p = 0; p < positions; ++p) {
        const Expr &ix = *e.children[p + 1];
        const int n = extent[p];
        if (ix.kind != Expr::Kind::Slice) {
            Value v = int32_index(ix);
            if (!v.ok()) return poison();
            if (const auto c = constant_int(v)) {
                if (*c < -n || *c >= n) {
                    diags_.error(ix.location, "index " + ir::to_string(*c) + " is out of range for '" + t.name() +
                                                  "' (0 to " + std::to_string(n - 1) + ")");
                    return poison();
                }
                picks[p] = {static_cast<int>(*c < 0 ? *c + n : *c)};
            } else {
                if (runtime) {
                    diags_.error(ix.location, "a slice of '" + t.name() + "' takes at most one run-time index");
                    return poison();
                }
                picks[p] = {-1};
                runtime = std::move(v);
            }
            continue;
        }
        sliced[p] = true;
        std::optional<ir::IntValue> bounds[3];
        std::size_t child = 0;
        for (int part = 0; part < 3; ++part) {
            if (ix.text[static_cast<std::size_t>(part)] != '1') continue;
            const Expr &b = *ix.children[child++];
            Value v = expr(b);
            if (!v.ok()) return poison();
            settle(v);
            bounds[part] = v.type().is_integer() ? constant_int(v) : std::nullopt;
            if (!bounds[part]) {
                diags_.error(b.location, "slice bounds of '" + t.name() +
                                             "' must be integer constants (literals or wp.constant values): the "
                                             "slice's length is part of its type; to select components at run "
                                             "time, index them one by one");
                return poison();
            }
        }
        const ir::IntValue step = bounds[2] ? *bounds[2] : 1;
        if (step == 0) {
            diags_.error(ix.location, "slice step cannot be zero: use a positive step, or a negative one to go backwards");
            return poison();
        }
        picks[p] = slice_positions(bounds[0], bounds[1], step, n);
        if (picks[p].empty()) {
            diags_.error(ix.location, "slice of '" + t.name() + "' selects no components");
            return poison();
        }
    }
    if (matrix && positions == 1) { // m[a:b]: those rows, every column
        sliced[1] = true;
        for (int c = 0; c < t.cols(); ++c) picks[1].push_back(c);
    }
    const Scalar s = t.scalar_type();
    Type result = Type::vector(s, static_cast<int>(picks[0].size()));
    if (matrix) {
        if (sliced[0] && sliced[1]) result = Type::matrix(s, static_cast<int>(picks[0].size()), static_cast<int>(picks[1].size()));
        else result = Type::vector(s, static_cast<int>(sliced[0] ? picks[0].size() : picks[1].size()));
    }
    note_type(result);
    auto x = make(K::Gather, result, e.location);
    ir::ConstantValue positions_value{Type::scalar(Scalar::Int32), {}, {}};
    for (int r : picks[0]) {
        if (!matrix) {
            positions_value.int_components.push_back(r);
            continue;
        }
        for (int c : picks[1]) {
            positions_value.int_components.push_back(r);
            positions_value.int_components.push_back(c);
        }
    }
    positions_value.components.assign(positions_value.int_components.size(), 0.0);
    x->value = std::move(positions_value);
    x->args.push_back(std::move(base.expr));
    if (runtime) x->args.push_back(std::move(runtime->expr));
    return Value{std::move(x)};
}

Value Checker::sliced_subscript(const Expr &e, Value base) {
    const Type t = base.type();
    switch (t.kind()) {
    case Type::Kind::Array:
        if (t.is_indexed_array()) return indexed_view(e, std::move(base));
        return array_view(e, std::move(base));
    case Type::Kind::Vector:
    case Type::Kind::Matrix:
    case Type::Kind::Quaternion: return composite_slice(e, std::move(base));
    default:
        diags_.error(e.location, "'" + t.name() +
                                     "' cannot be sliced: slices apply to arrays, vectors, matrices and quaternions");
        return poison();
    }
}

} // namespace weft::kernel::detail

namespace weft::kernel::detail {

namespace {

/// A path every part of which can be evaluated again without effects.
bool repeatable(const ir::Expr &e) {
    if (e.is_atom()) return true;
    if (e.kind != K::Field && e.kind != K::Index) return false;
    for (const ir::ExprPtr &a : e.args)
        if (!repeatable(*a)) return false;
    return true;
}

ir::ExprPtr int_literal(int v, SourceLocation at) {
    const Type i32 = Type::scalar(Scalar::Int32);
    auto l = std::make_unique<ir::Expr>(K::Literal, at);
    l->type = i32;
    l->value = ir::ConstantValue{i32, {static_cast<double>(v)}, {v}};
    return l;
}

} // namespace

void Checker::hoist_slice_index(ir::Expr &gather, SourceLocation at, std::vector<ir::StmtPtr> &out) {
    if (gather.args.size() < 2 || repeatable(*gather.args[1])) return;
    const std::string name = "weft_slice_index_" + std::to_string(at.line) + "_" + std::to_string(at.column);
    const Type i32 = Type::scalar(Scalar::Int32);
    auto index = std::make_unique<ir::Stmt>(ir::Stmt::Kind::Declare, at);
    index->index = declare_local(name, i32, at);
    scope_->locals.erase(name);
    index->value = std::move(gather.args[1]);
    auto ref = make(K::Local, i32, at);
    ref->index = index->index;
    gather.args[1] = std::move(ref);
    out.push_back(std::move(index));
}

void Checker::slice_store(ir::ExprPtr gather, Value value, SourceLocation at, std::vector<ir::StmtPtr> &out) {
    const Type slice_type = gather->type;
    ir::Expr &base = *gather->args[0];
    if (!coerce(value, slice_type)) {
        diags_.error(at, "cannot store '" + shown(value) + "' into a slice of type '" + slice_type.name() +
                             "': the value must have the slice's length (" + slice_type.name() + ")");
        return;
    }
    const ir::Expr *root = &base;
    for (; root->kind == K::Field || root->kind == K::Index; root = root->args[0].get())
        if (root->kind == K::Index && root->args[0]->type.kind() == Type::Kind::Array) {
            // As Warp 1.19, which has no reference to a slice of an array element.
            diags_.error(at, "a slice of an array element cannot be assigned to: copy the element to a local, "
                             "assign the slice and store it back (v = a[i]; v[0:2] = ...; a[i] = v)");
            return;
        }
    if (root->kind != K::Local && root->kind != K::Param) {
        diags_.error(at, "this slice cannot be assigned to: assign to a slice of a variable or parameter");
        return;
    }
    if (&base != root) {
        // Warp 1.19 assigns slices of a variable only (its indexref takes no path).
        diags_.error(at, "only a slice of a variable can be assigned to: copy the value to a local, assign the slice "
                         "and store it back (v = s.v; v[0:2] = ...; s.v = v)");
        return;
    }
    // The value once, into a hidden local (then the target's run-time index, in
    // Python's order); then each selected component.
    const std::string hidden = "weft_slice_" + std::to_string(at.line) + "_" + std::to_string(at.column);
    auto decl = std::make_unique<ir::Stmt>(ir::Stmt::Kind::Declare, at);
    decl->index = declare_local(hidden, slice_type, at);
    scope_->locals.erase(hidden);
    decl->value = std::move(value.expr);
    const int tmp = decl->index;
    out.push_back(std::move(decl));
    hoist_slice_index(*gather, at, out);
    const auto &pos = gather->value->int_components;
    const bool matrix = base.type.kind() == Type::Kind::Matrix;
    const std::size_t count = matrix ? pos.size() / 2 : pos.size();
    const Type scalar = Type::scalar(slice_type.scalar_type());
    for (std::size_t k = 0; k < count; ++k) {
        auto target = make(K::Index, scalar, at);
        target->args.push_back(base.clone());
        auto position = [&](ir::IntValue p) { return p >= 0 ? int_literal(static_cast<int>(p), at) : gather->args[1]->clone(); };
        if (matrix) {
            target->args.push_back(position(pos[2 * k]));
            target->args.push_back(position(pos[2 * k + 1]));
        } else {
            target->args.push_back(position(pos[k]));
        }
        auto source = make(K::Index, scalar, at);
        auto local = make(K::Local, slice_type, at);
        local->index = tmp;
        source->args.push_back(std::move(local));
        if (slice_type.kind() == Type::Kind::Matrix) {
            source->args.push_back(int_literal(static_cast<int>(k / static_cast<std::size_t>(slice_type.cols())), at));
            source->args.push_back(int_literal(static_cast<int>(k % static_cast<std::size_t>(slice_type.cols())), at));
        } else {
            source->args.push_back(int_literal(static_cast<int>(k), at));
        }
        auto store = std::make_unique<ir::Stmt>(ir::Stmt::Kind::Store, at);
        store->target = std::move(target);
        store->value = std::move(source);
        out.push_back(std::move(store));
    }
}

} // namespace weft::kernel::detail
