// Statements, assignments and function bodies.
#include "checker.hpp"

namespace weft::kernel::detail {

using ast::Expr;
using ast::Stmt;
using K = ir::Expr::Kind;
using S = ir::Stmt::Kind;

namespace {
ir::StmtPtr make_stmt(S kind, SourceLocation at) { return std::make_unique<ir::Stmt>(kind, at); }

/// Only storage can be written: arrays, locals, parameters, and their parts.
bool writable(const ir::Expr &lvalue) {
    const ir::Expr *root = &lvalue;
    while ((root->kind == K::Field || root->kind == K::Index) && !root->args.empty()) {
        if (root->kind == K::Index && root->args[0]->type.kind() == Type::Kind::Array) return true;
        root = root->args[0].get();
    }
    return root->kind == K::Local || root->kind == K::Param;
}

} // namespace

Value Checker::tuple(const Expr &e, const std::vector<std::optional<Type>> &hints) {
    std::vector<Type> types;
    auto x = make(K::Construct, Type::scalar(Scalar::Int32), e.location);
    for (std::size_t i = 0; i < e.children.size(); ++i) {
        Value v = expr(*e.children[i]);
        if (!v.ok()) return poison();
        if (i < hints.size() && hints[i]) coerce(v, *hints[i]);
        settle(v);
        types.push_back(v.type());
        x->args.push_back(std::move(v.expr));
    }
    x->type = Type::tuple(std::move(types));
    return Value{std::move(x)};
}

std::string Checker::callee_name(const ir::Expr &call) const {
    // A user function's node carries its mangled name; the user wrote the plain one.
    if (call.kind == K::Call && call.index >= 0) return out_.functions[static_cast<std::size_t>(call.index)].name;
    return call.name;
}

int Checker::declare_local(const std::string &name, const Type &type, SourceLocation at) {
    ir::Function &f = *scope_->function;
    f.locals.push_back({name, type, at});
    const int index = static_cast<int>(f.locals.size() - 1);
    scope_->locals[name] = index;
    note_type(type);
    return index;
}

void Checker::statements(const std::vector<ast::StmtPtr> &body, std::vector<ir::StmtPtr> &out) {
    for (const ast::StmtPtr &s : body) {
        if (diags_.at_limit()) return;
        statement(*s, out);
    }
}

/// Stores `value` into `target` (a Name, Subscript or Attribute lvalue).
void Checker::assign(const Expr &target, Value value, SourceLocation at, std::vector<ir::StmtPtr> &out) {
    if (!value.ok()) {
        // Reported already; a new name is poisoned so later uses do not cascade into "not defined".
        if (target.kind == Expr::Kind::Name && !scope_->locals.count(target.text) && !scope_->params.count(target.text))
            scope_->poisoned.insert(target.text);
        return;
    }
    if (value.type().is_void()) {
        diags_.error(value.expr->location, "cannot assign the result of '" + callee_name(*value.expr) + "', which returns nothing");
        return;
    }
    if (value.type().kind() == Type::Kind::Tuple) {
        diags_.error(at, "cannot assign " + std::to_string(value.type().elements().size()) +
                             " values to one target; unpack them: a, b = ...");
        return;
    }
    if (target.kind == Expr::Kind::Name) {
        const std::string &name = target.text;
        if (auto it = scope_->locals.find(name); it != scope_->locals.end()) {
            const ir::Variable &var = scope_->function->locals[static_cast<std::size_t>(it->second)];
            if (!coerce(value, var.type)) {
                diags_.error(at, "cannot assign '" + shown(value) + "' to '" + name + "', which is " +
                                     var.type.name() + " (its type is fixed by its first assignment, line " +
                                     std::to_string(var.location.line) + ")");
                return;
            }
            // A tile assigned again outside any if or loop: a new variable of
            // the name (the assignment runs once; every later use sees it), so
            // the backward pass, which recomputes tiles and never saves them,
            // keeps each value (z = relu(w1 @ z + b1) layer after layer).
            const bool rename = var.type.is_tile() && scope_->block_depth == 0;
            auto s = make_stmt(rename ? S::Declare : S::Assign, at);
            const Type type = var.type; // declare_local grows the locals `var` is one of
            const int version = var.version + 1;
            s->index = rename ? declare_local(name, type, target.location) : it->second;
            if (rename) scope_->function->locals[static_cast<std::size_t>(s->index)].version = version;
            s->value = std::move(value.expr);
            out.push_back(std::move(s));
            return;
        }
        if (auto it = scope_->params.find(name); it != scope_->params.end()) {
            const ir::Variable &p = scope_->function->params[static_cast<std::size_t>(it->second)];
            if (!coerce(value, p.type)) {
                diags_.error(at, "cannot assign '" + shown(value) + "' to parameter '" + name + "', which is " +
                                     p.type.name());
                return;
            }
            auto s = make_stmt(S::Store, at);
            s->target = make(K::Param, p.type, target.location);
            s->target->index = it->second;
            s->target->name = name;
            s->value = std::move(value.expr);
            out.push_back(std::move(s));
            return;
        }
        if (constants_.count(name)) {
            diags_.error(at, "cannot assign to the module constant '" + name + "'");
            return;
        }
        settle(value);
        auto s = make_stmt(S::Declare, at);
        s->index = declare_local(name, value.type(), target.location);
        s->value = std::move(value.expr);
        out.push_back(std::move(s));
        return;
    }
    if (target.kind == Expr::Kind::Subscript || target.kind == Expr::Kind::Attribute) {
        Value lhs = expr(target);
        if (!lhs.ok()) return;
        if (lhs.expr->kind == K::Gather) return slice_store(std::move(lhs.expr), std::move(value), at, out);
        if (lhs.expr->kind == K::View) {
            diags_.error(target.location, "an array view cannot be assigned to: store its elements (row[j] = ...) "
                                          "in a loop");
            return;
        }
        if (!writable(*lhs.expr)) {
            diags_.error(target.location, "this expression cannot be assigned to");
            return;
        }
        if (!coerce(value, lhs.type())) {
            diags_.error(at, "cannot store '" + shown(value) + "' into " +
                                 (target.kind == Expr::Kind::Attribute ? "field '" + target.text + "'" : std::string("an element")) +
                                 " of type '" + lhs.type().name() + "'");
            return;
        }
        auto s = make_stmt(S::Store, at);
        s->target = std::move(lhs.expr);
        s->value = std::move(value.expr);
        out.push_back(std::move(s));
        return;
    }
    diags_.error(target.location, "cannot assign to this expression");
}

void Checker::statement(const Stmt &s, std::vector<ir::StmtPtr> &out) {
    switch (s.kind) {
    case Stmt::Kind::Pass: return;
    case Stmt::Kind::Expr: return stmt_expr(s, out);
    case Stmt::Kind::Assign: return stmt_assign(s, out);
    case Stmt::Kind::AnnAssign: return stmt_ann_assign(s, out);
    case Stmt::Kind::AugAssign: return stmt_aug_assign(s, out);
    case Stmt::Kind::If: return stmt_if(s, out);
    case Stmt::Kind::While: return stmt_while(s, out);
    case Stmt::Kind::For: return stmt_for(s, out);
    case Stmt::Kind::Break:
    case Stmt::Kind::Continue: return stmt_break_continue(s, out);
    case Stmt::Kind::Return: return stmt_return(s, out);
    }
}

void Checker::stmt_expr(const Stmt &s, std::vector<ir::StmtPtr> &out) {
    if (s.value->kind == Expr::Kind::String) return; // a docstring
    // quat_to_axis_angle(q, axis, angle), Warp's form with output arguments:
    // the unpacking axis, angle = quat_to_axis_angle(q).
    if (const Expr &call = *s.value; call.kind == Expr::Kind::Call && call.children.size() == 4 && call.keywords.empty() &&
                                     call.children[2]->kind == Expr::Kind::Name &&
                                     call.children[3]->kind == Expr::Kind::Name) {
        const std::optional<std::string> callee = dotted(*call.children[0]);
        const std::string name = callee ? strip_warp(*callee) : std::string();
        if (name == "quat_to_axis_angle" && !(*callee == name && funcs_.count(name))) {
            Stmt unpack(Stmt::Kind::Assign, s.location);
            auto targets = std::make_unique<Expr>(Expr::Kind::Tuple, call.location);
            targets->children.push_back(ast::clone(*call.children[2]));
            targets->children.push_back(ast::clone(*call.children[3]));
            unpack.targets.push_back(std::move(targets));
            auto value = std::make_unique<Expr>(Expr::Kind::Call, call.location);
            value->children.push_back(ast::clone(*call.children[0]));
            value->children.push_back(ast::clone(*call.children[1]));
            unpack.value = std::move(value);
            return stmt_assign(unpack, out);
        }
    }
    // Warp's in-place setters on a local transform are the stores they stand
    // for (xform.p = p, xform.q = q), with the stores' gradients.
    if (const Expr &call = *s.value; call.kind == Expr::Kind::Call && call.children.size() == 3 && call.keywords.empty() &&
                                     call.children[1]->kind == Expr::Kind::Name) {
        const std::optional<std::string> callee = dotted(*call.children[0]);
        const std::string name = callee ? strip_warp(*callee) : std::string();
        const bool user_function = callee && *callee == name && funcs_.count(name);
        if ((name == "transform_set_translation" || name == "transform_set_rotation") && !user_function) {
            Value local = expr(*call.children[1]);
            if (local.ok() && local.expr->kind == K::Local && local.type().kind() == Type::Kind::Transform) {
                Stmt store(Stmt::Kind::Assign, s.location);
                auto field = std::make_unique<Expr>(Expr::Kind::Attribute, call.location);
                field->text = name == "transform_set_translation" ? "p" : "q";
                field->children.push_back(ast::clone(*call.children[1]));
                store.targets.push_back(std::move(field));
                store.value = ast::clone(*call.children[2]);
                return stmt_assign(store, out);
            }
        }
    }
    Value v = expr(*s.value);
    if (!v.ok()) return;
    const bool tile_effect = v.expr->kind == K::Tile && (v.expr->name == "tile_store" || v.expr->name == "tile_atomic_add" ||
                                                         v.expr->name == "tile_matmul_acc" || v.expr->name == "tile_axpy");
    if (v.expr->kind != K::Builtin && v.expr->kind != K::Intrinsic && v.expr->kind != K::Call && !tile_effect)
        diags_.warning(s.location, "expression statement has no effect");
    auto st = make_stmt(S::Eval, s.location);
    st->value = std::move(v.expr);
    out.push_back(std::move(st));
}

void Checker::stmt_assign(const Stmt &s, std::vector<ir::StmtPtr> &out) {
    if (s.targets.size() != 1) {
        diags_.error(s.location, "chained assignment (a = b = ...) is not supported in kernels");
        return;
    }
    const Expr &target = *s.targets[0];
    if (target.kind == Expr::Kind::Tuple) return stmt_unpack(s, out);
    // `f = wp.sin`: a local name for a function, resolved when the module is
    // built (module hashes and plugin contracts see the function itself).
    if (target.kind == Expr::Kind::Name)
        if (auto fn = function_named(*s.value)) return bind_function_alias(s, target.text, *fn);
    Value v = expr(*s.value);
    if (v.ok() && v.expr->kind == K::Intrinsic && v.expr->intrinsic == ir::Intrinsic::Tid) {
        ir::Function &f = *scope_->function;
        if (f.tid_dims > 1) {
            diags_.error(s.location, "tid() is assigned to one value here but unpacked into " +
                                         std::to_string(f.tid_dims) + " at line " +
                                         std::to_string(scope_->tid_dims_line));
            return;
        }
        f.tid_dims = 1;
        scope_->tid_dims_line = static_cast<int>(s.location.line);
    }
    if (!v.ok() && target.kind == Expr::Kind::Name && !scope_->locals.count(target.text) &&
        !scope_->params.count(target.text)) {
        scope_->poisoned.insert(target.text); // reported; later uses would only repeat it
        return;
    }
    assign(target, std::move(v), s.location, out);
}

void Checker::bind_function_alias(const Stmt &s, const std::string &name, const std::string &fn) {
    const auto bound = scope_->function_aliases.find(name);
    if (scope_->locals.count(name) || scope_->params.count(name)) {
        diags_.error(s.location, "'" + name + "' holds a value; it cannot also name the function '" + fn + "'");
    } else if (bound != scope_->function_aliases.end() && bound->second.first != fn) {
        diags_.error(s.location, "'" + name + "' already names the function '" + bound->second.first + "' (line " +
                                     std::to_string(bound->second.second) +
                                     "): a local bound to a function is bound to one function");
    } else {
        scope_->function_aliases[name] = {fn, static_cast<int>(s.location.line)};
    }
}

void Checker::stmt_unpack(const Stmt &s, std::vector<ir::StmtPtr> &out) {
    // a, b = tid() / a, b = f() / a, b = x, y
    const Expr &target = *s.targets[0];
    const std::size_t n = target.children.size();
    for (const auto &t : target.children)
        if (t->kind != Expr::Kind::Name) {
            diags_.error(t->location, "only names can be unpacked into");
            return;
        }
    Value v = unpacked_value(s);
    if (!v.ok()) return;
    const std::optional<std::vector<Type>> types = unpacked_types(s, v, n);
    if (!types) return;
    auto st = make_stmt(S::Unpack, s.location);
    std::vector<ir::StmtPtr> write_through; // wp.ref parameters among the targets: stored after the unpack
    for (std::size_t i = 0; i < n; ++i) {
        const std::string &name = target.children[i]->text;
        auto it = scope_->locals.find(name);
        if (const auto p = scope_->params.find(name); it == scope_->locals.end() && p != scope_->params.end()) {
            // Only a wp.ref parameter is still a parameter here (shadow_rebound_params): the caller's variable.
            const ir::Variable &param = scope_->function->params[static_cast<std::size_t>(p->second)];
            if (param.type != (*types)[i]) {
                diags_.error(target.children[i]->location, "cannot assign '" + (*types)[i].name() + "' to parameter '" +
                                                               name + "', which is " + param.type.name());
                return;
            }
            ir::Function &f = *scope_->function;
            // A temporary ("_tu<index>": lowering's are "_t<N>"), so that the name stays the parameter's.
            const int temp = static_cast<int>(f.locals.size());
            f.locals.push_back({"_tu" + std::to_string(temp), param.type, target.children[i]->location, true});
            st->targets.push_back(temp);
            auto store = make_stmt(S::Store, s.location);
            store->target = make(K::Param, param.type, target.children[i]->location);
            store->target->index = p->second;
            store->target->name = name;
            store->value = make(K::Local, param.type, target.children[i]->location);
            store->value->index = temp;
            write_through.push_back(std::move(store));
            continue;
        }
        if (it != scope_->locals.end()) {
            if (scope_->function->locals[static_cast<std::size_t>(it->second)].type != (*types)[i]) {
                diags_.error(target.children[i]->location,
                             "cannot assign '" + (*types)[i].name() + "' to '" + name + "', which is " +
                                 scope_->function->locals[static_cast<std::size_t>(it->second)].type.name());
                return;
            }
            st->targets.push_back(it->second);
        } else {
            st->targets.push_back(declare_local(name, (*types)[i], target.children[i]->location));
        }
    }
    st->value = std::move(v.expr);
    out.push_back(std::move(st));
    for (ir::StmtPtr &store : write_through) out.push_back(std::move(store));
}

Value Checker::unpacked_value(const Stmt &s) {
    const Expr &target = *s.targets[0];
    const std::size_t n = target.children.size();
    if (s.value->kind != Expr::Kind::Tuple) return expr(*s.value);
    if (s.value->children.size() != n) {
        diags_.error(s.location, "cannot unpack " + std::to_string(s.value->children.size()) + " values into " +
                                     std::to_string(n) + " names");
        return poison();
    }
    // Every value is evaluated before any name is assigned: x, y = y, x swaps.
    std::vector<std::optional<Type>> hints;
    for (const auto &t : target.children) {
        auto it = scope_->locals.find(t->text);
        hints.push_back(it == scope_->locals.end()
                            ? std::nullopt
                            : std::optional<Type>(scope_->function->locals[static_cast<std::size_t>(it->second)].type));
    }
    return tuple(*s.value, hints);
}

std::optional<std::vector<Type>> Checker::unpacked_types(const Stmt &s, Value &v, std::size_t n) {
    std::vector<Type> types;
    if (v.expr->kind == K::Intrinsic && v.expr->intrinsic == ir::Intrinsic::Tid) {
        if (n < 1 || n > 4) {
            diags_.error(s.location, "tid() unpacks into 1 to 4 values, not " + std::to_string(n));
            return std::nullopt;
        }
        types.assign(n, Type::scalar(Scalar::Int32));
        v.expr->type = Type::tuple(types);
        ir::Function &f = *scope_->function;
        if (f.tid_dims && f.tid_dims != static_cast<int>(n)) {
            diags_.error(s.location, "tid() is unpacked into " + std::to_string(n) + " values here but " +
                                         std::to_string(f.tid_dims) + " at line " +
                                         std::to_string(scope_->tid_dims_line));
            return std::nullopt;
        }
        f.tid_dims = static_cast<int>(n);
        scope_->tid_dims_line = static_cast<int>(s.location.line);
    } else if (v.type().kind() == Type::Kind::Tuple) {
        types = v.type().elements();
        if (types.size() != n) {
            diags_.error(s.location, "cannot unpack " + std::to_string(types.size()) + " values into " +
                                         std::to_string(n) + " names");
            return std::nullopt;
        }
    } else {
        diags_.error(s.location, "cannot unpack '" + v.type().name() + "' into " + std::to_string(n) + " names");
        return std::nullopt;
    }
    return types;
}

void Checker::stmt_ann_assign(const Stmt &s, std::vector<ir::StmtPtr> &out) {
    const Expr &target = *s.targets[0];
    if (target.kind != Expr::Kind::Name) {
        diags_.error(target.location, "annotated assignment needs a simple name");
        return;
    }
    auto type = concrete_type(*s.annotation);
    if (!type) return;
    if (scope_->locals.count(target.text) || scope_->params.count(target.text)) {
        diags_.error(target.location, "'" + target.text + "' is already defined; annotate its first assignment only");
        return;
    }
    if (!s.value) {
        diags_.error(s.location, "an annotated local needs a value: " + target.text + ": " + type->name() + " = ...");
        return;
    }
    Value v = expr(*s.value);
    if (!v.ok()) {
        scope_->poisoned.insert(target.text);
        return;
    }
    if (!coerce(v, *type)) {
        scope_->poisoned.insert(target.text);
        diags_.error(s.location, "cannot assign '" + shown(v) + "' to '" + target.text + "', declared " + type->name());
        return;
    }
    auto st = make_stmt(S::Declare, s.location);
    st->index = declare_local(target.text, *type, target.location);
    st->value = std::move(v.expr);
    out.push_back(std::move(st));
}

void Checker::stmt_aug_assign(const Stmt &s, std::vector<ir::StmtPtr> &out) {
    // target op= value: the target is evaluated once (lowering keeps it so);
    // the operator resolves like its binary form.
    const Expr &target = *s.targets[0];
    if (target.kind == Expr::Kind::Name && !scope_->locals.count(target.text) && !scope_->params.count(target.text)) {
        diags_.error(target.location, constants_.count(target.text)
                                          ? "cannot assign to the module constant '" + target.text + "'"
                                          : "name '" + target.text + "' is not defined");
        return;
    }
    if (target.kind != Expr::Kind::Name && target.kind != Expr::Kind::Subscript &&
        target.kind != Expr::Kind::Attribute) {
        diags_.error(target.location, "cannot assign to this expression");
        return;
    }
    Value current = expr(target);
    Value rhs = expr(*s.value);
    if (!current.ok() || !rhs.ok()) return;
    if (current.expr->kind == K::Gather) { // v[1:] += x: v[1:] = v[1:] + x
        hoist_slice_index(*current.expr, s.location, out);
        ir::ExprPtr slice = current.expr->clone();
        Value combined = binary(s.text, std::move(current), std::move(rhs), s.location);
        if (!combined.ok()) return;
        return slice_store(std::move(slice), std::move(combined), s.location, out);
    }
    if (!writable(*current.expr)) {
        diags_.error(target.location, "this expression cannot be assigned to");
        return;
    }
    ir::ExprPtr lvalue = current.expr->clone();
    Value combined = binary(s.text, std::move(current), std::move(rhs), s.location);
    if (!combined.ok()) return;
    if (combined.type() != lvalue->type) {
        diags_.error(s.location, "'" + s.text + "=' gives '" + combined.type().name() +
                                     "', which cannot be stored in '" + lvalue->type.name() + "'");
        return;
    }
    if (lvalue->type.is_tile()) {
        // t += u: the operation into t itself (Warp's tile_add_inplace); a
        // parameter is the caller's tile, which changes.
        if (lvalue->kind != K::Local && lvalue->kind != K::Param) {
            diags_.error(target.location, "'" + s.text + "=' on a tile needs a tile variable");
            return;
        }
        auto st = make_stmt(lvalue->kind == K::Local ? S::Assign : S::Store, s.location);
        if (lvalue->kind == K::Local) st->index = lvalue->index;
        else st->target = std::move(lvalue);
        st->value = std::move(combined.expr);
        out.push_back(std::move(st));
        return;
    }
    auto st = make_stmt(S::AugAssign, s.location);
    st->overload = combined.expr->overload;
    st->value = std::move(combined.expr->args[1]);
    // Warp's semantics: += and -= on an array element are atomic.
    const Type &dtype = lvalue->type;
    const bool array_element = lvalue->kind == K::Index && lvalue->args[0]->type.kind() == Type::Kind::Array;
    const bool atomic_dtype = (dtype.is_scalar() && !dtype.is_bool()) || dtype.kind() == Type::Kind::Vector;
    if (array_element && atomic_dtype && (s.text == "+" || s.text == "-"))
        st->atomic = s.text == "+" ? ir::Intrinsic::AtomicAdd : ir::Intrinsic::AtomicSub;
    st->target = std::move(lvalue);
    out.push_back(std::move(st));
}

Value Checker::condition(const Expr &test) {
    Value cond = expr(test);
    if (cond.ok()) {
        settle(cond);
        if (!cond.type().is_scalar()) {
            diags_.error(test.location, "condition must be bool or a scalar, got '" + cond.type().name() + "'");
            cond = poison();
        }
    }
    return cond;
}

void Checker::stmt_if(const Stmt &s, std::vector<ir::StmtPtr> &out) {
    Value cond = condition(*s.test);
    auto st = make_stmt(S::If, s.location);
    st->cond = std::move(cond.expr);
    ++scope_->block_depth;
    statements(s.body, st->body);
    statements(s.orelse, st->orelse);
    --scope_->block_depth;
    out.push_back(std::move(st));
}

void Checker::stmt_while(const Stmt &s, std::vector<ir::StmtPtr> &out) {
    Value cond = condition(*s.test);
    if (cond.ok() && cond.expr->kind == K::Builtin && cond.expr->overload &&
        std::any_of(cond.expr->overload->params.begin(), cond.expr->overload->params.end(),
                    [](const Parameter &p) { return p.inout; })) {
        query_loop(std::move(cond.expr), s.body, s.orelse, s.location, out);
        return;
    }
    auto st = make_stmt(S::While, s.location);
    st->cond = std::move(cond.expr);
    ++scope_->loop_depth;
    ++scope_->block_depth;
    statements(s.body, st->body);
    --scope_->block_depth;
    --scope_->loop_depth;
    statements(s.orelse, st->orelse);
    out.push_back(std::move(st));
}

void Checker::stmt_for(const Stmt &s, std::vector<ir::StmtPtr> &out) {
    const Expr &var = *s.targets[0];
    const Expr &iter = *s.iter;
    {
        const auto callee = iter.kind == Expr::Kind::Call ? dotted(*iter.children[0]) : std::nullopt;
        if (!callee || strip_warp(*callee) != "range") return stmt_for_query(s, out);
    }
    Type itype = Type::scalar(Scalar::Int32); // set by range_bounds()
    std::optional<std::vector<Value>> bounds = range_bounds(iter, itype);
    if (!bounds) return;
    auto st = make_stmt(S::For, s.location);
    if (bounds->size() == 1) {
        auto zero = make(K::Literal, itype, iter.location);
        zero->value = ir::ConstantValue{itype, {0.0}, {0}};
        st->args.push_back(std::move(zero));
    }
    for (Value &b : *bounds) st->args.push_back(std::move(b.expr));
    if (bounds->size() < 3) {
        auto one = make(K::Literal, itype, iter.location);
        one->value = ir::ConstantValue{itype, {1.0}, {1}};
        st->args.push_back(std::move(one));
    }
    if (auto it = scope_->locals.find(var.text); it != scope_->locals.end()) {
        if (scope_->function->locals[static_cast<std::size_t>(it->second)].type != itype) {
            diags_.error(var.location, "loop variable '" + var.text + "' is " +
                                           scope_->function->locals[static_cast<std::size_t>(it->second)].type.name() +
                                           " but the range is " + itype.name());
            return;
        }
        st->index = it->second;
    } else {
        st->index = declare_local(var.text, itype, var.location);
    }
    ++scope_->loop_depth;
    ++scope_->block_depth;
    statements(s.body, st->body);
    --scope_->block_depth;
    --scope_->loop_depth;
    out.push_back(std::move(st));
}

/// A loop whose condition advances a query through inout arguments
/// (`while hash_grid_query_next(query, index)`), written so that a backward
/// pass sees each iteration's index: the call writes hidden copies of the
/// scalar arguments, and the user's variables are assigned from them by
/// ordinary statements, which backward passes save and restore:
///     raw = index
///     while True:
///         more = next(query, raw)
///         if not more: ORELSE; break
///         index = raw
///         BODY
/// The query state itself is advanced in place (a backward pass does not
/// walk it back: reading its fields in the body is not differentiated).
void Checker::query_loop(ir::ExprPtr call, const std::vector<ast::StmtPtr> &body,
                         const std::vector<ast::StmtPtr> &orelse, SourceLocation at, std::vector<ir::StmtPtr> &out) {
    ir::Function &f = *scope_->function;
    std::vector<std::pair<int, int>> copies; // (user's local, hidden copy)
    for (std::size_t i = 0; i < call->args.size() && i < call->overload->params.size(); ++i) {
        ir::Expr &arg = *call->args[i];
        if (!call->overload->params[i].inout || arg.kind != K::Local || arg.type.kind() != Type::Kind::Scalar) continue;
        f.locals.push_back({"query_index", arg.type, at});
        f.locals.back().temporary = true;
        const int raw = static_cast<int>(f.locals.size() - 1);
        auto init = make_stmt(S::Declare, at);
        init->index = raw;
        init->value = make(K::Local, arg.type, at);
        init->value->index = arg.index;
        out.push_back(std::move(init));
        copies.emplace_back(arg.index, raw);
        arg.index = raw;
    }
    const Type boolean = Type::scalar(Scalar::Bool);
    f.locals.push_back({"query_more", boolean, at});
    f.locals.back().temporary = true;
    const int more = static_cast<int>(f.locals.size() - 1);
    auto loop = make_stmt(S::While, at);
    loop->cond = make(K::Literal, boolean, at);
    loop->cond->value = ir::ConstantValue{boolean, {1.0}, {1}};
    auto step = make_stmt(S::Declare, at);
    step->index = more;
    step->value = std::move(call);
    loop->body.push_back(std::move(step));
    auto done = make_stmt(S::If, at);
    done->cond = make(K::Local, boolean, at);
    done->cond->index = more;
    if (!orelse.empty()) {
        // Its `break` would leave this loop, not the one around it, once the loop is rewritten.
        diags_.error(orelse.front()->location, "an else branch after a while loop over a query is not supported");
        return;
    }
    ++scope_->loop_depth;
    ++scope_->block_depth;
    done->orelse.push_back(make_stmt(S::Break, at));
    loop->body.push_back(std::move(done));
    for (const auto &[user, raw] : copies) {
        auto assign = make_stmt(S::Assign, at);
        assign->index = user;
        assign->value = make(K::Local, f.locals[static_cast<std::size_t>(raw)].type, at);
        assign->value->index = raw;
        loop->body.push_back(std::move(assign));
    }
    statements(body, loop->body);
    --scope_->block_depth;
    --scope_->loop_depth;
    out.push_back(std::move(loop));
}

/// `for i in q`, q a plugin's query value (Warp's `for index in
/// wp.hash_grid_query(...)`): the loop `while next(q, i)`, where `next` is the
/// builtin that advances a query of q's type, found by its signature
/// next(query: Q (inout), index: int32 (inout)) -> bool; the iterating call's
/// name + "_next" first when several have it.
void Checker::stmt_for_query(const Stmt &s, std::vector<ir::StmtPtr> &out) {
    const Expr &var = *s.targets[0];
    const Expr &iter = *s.iter;
    Value q = expr(iter);
    if (!q.ok()) return;
    const Type int32 = Type::scalar(Scalar::Int32);
    if (q.type().kind() != Type::Kind::Native) {
        diags_.error(iter.location, "for loops iterate over range(...) or a query value (hash_grid_query(...) and "
                                    "the like); this is " + q.type().name());
        return;
    }
    std::vector<const BuiltinOverload *> next;
    for (const std::string &name : registry_.builtin_names()) {
        if (name.size() < 5 || name.compare(name.size() - 5, 5, "_next") != 0) continue;
        for (const BuiltinOverload &o : registry_.overloads(name))
            if (o.params.size() == 2 && o.params[0].inout && o.params[1].inout && o.params[0].type == q.type() &&
                o.params[1].type == int32 && o.result && *o.result == Type::scalar(Scalar::Bool))
                next.push_back(&o);
    }
    if (next.size() > 1 && iter.kind == Expr::Kind::Call)
        if (const auto callee = dotted(*iter.children[0])) {
            const std::string preferred = strip_warp(*callee) + "_next";
            for (const BuiltinOverload *o : next)
                if (o->name == preferred) next = {o};
        }
    if (next.size() != 1) {
        std::vector<std::string> names;
        for (const BuiltinOverload *o : next) names.push_back(o->signature());
        diags_.error(iter.location,
                     next.empty() ? "cannot iterate over a " + q.type().name() + ": no builtin NAME_next(query: " +
                                        q.type().name() + " (inout), index: int32 (inout)) -> bool advances it"
                                  : "iterating over a " + q.type().name() + " is ambiguous; these builtins advance it:",
                     std::move(names));
        return;
    }
    // The query lives in a variable the loop advances: the user's own, or a hidden one.
    const Type query_type = q.type();
    int query = -1;
    if (q.expr->kind == K::Local) {
        query = q.expr->index;
    } else {
        ir::Function &f = *scope_->function;
        f.locals.push_back({"for_query", query_type, iter.location});
        f.locals.back().temporary = true;
        query = static_cast<int>(f.locals.size() - 1);
        auto decl = make_stmt(S::Declare, s.location);
        decl->index = query;
        decl->value = std::move(q.expr);
        out.push_back(std::move(decl));
    }
    int index = -1;
    if (auto it = scope_->locals.find(var.text); it != scope_->locals.end()) {
        if (scope_->function->locals[static_cast<std::size_t>(it->second)].type != int32) {
            diags_.error(var.location, "loop variable '" + var.text + "' is " +
                                           scope_->function->locals[static_cast<std::size_t>(it->second)].type.name() +
                                           " but the query gives int32 indices");
            return;
        }
        index = it->second;
        auto zero = make(K::Literal, int32, var.location);
        zero->value = ir::ConstantValue{int32, {0.0}, {0}};
        auto init = make_stmt(S::Assign, s.location);
        init->index = index;
        init->value = std::move(zero);
        out.push_back(std::move(init));
    } else {
        index = declare_local(var.text, int32, var.location);
        auto zero = make(K::Literal, int32, var.location);
        zero->value = ir::ConstantValue{int32, {0.0}, {0}};
        auto decl = make_stmt(S::Declare, s.location);
        decl->index = index;
        decl->value = std::move(zero);
        out.push_back(std::move(decl));
    }
    auto call = make(K::Builtin, Type::scalar(Scalar::Bool), iter.location);
    call->name = next.front()->name;
    call->overload = note_builtin(*next.front());
    auto q_ref = make(K::Local, query_type, iter.location);
    q_ref->index = query;
    auto i_ref = make(K::Local, int32, var.location);
    i_ref->index = index;
    call->args.push_back(std::move(q_ref));
    call->args.push_back(std::move(i_ref));
    query_loop(std::move(call), s.body, {}, s.location, out);
}

std::optional<std::vector<Value>> Checker::range_bounds(const Expr &iter, Type &itype) {
    auto callee = iter.kind == Expr::Kind::Call ? dotted(*iter.children[0]) : std::nullopt;
    if (!callee || strip_warp(*callee) != "range") {
        diags_.error(iter.location, "for loops iterate over range(...) only");
        return std::nullopt;
    }
    const std::size_t n = iter.children.size() - 1;
    if (n < 1 || n > 3 || !iter.keywords.empty()) {
        diags_.error(iter.location, "range() takes 1 to 3 positional arguments, got " + std::to_string(n));
        return std::nullopt;
    }
    std::vector<Value> bounds;
    for (std::size_t i = 1; i < iter.children.size(); ++i) bounds.push_back(expr(*iter.children[i]));
    for (const Value &b : bounds)
        if (!b.ok()) return std::nullopt;
    // The loop variable takes the bounds' integer type (int32 for literals).
    itype = Type::scalar(Scalar::Int32);
    for (const Value &b : bounds)
        if (b.literal == Value::Literal::None) itype = b.type();
    for (std::size_t i = 0; i < bounds.size(); ++i) {
        if (!coerce(bounds[i], itype) || !itype.is_integer()) {
            diags_.error(iter.children[i + 1]->location, "range() bounds must share one integer type, got " +
                                                             type_list(bounds));
            return std::nullopt;
        }
    }
    if (bounds.size() == 3 && bounds[2].expr->kind == K::Literal && bounds[2].expr->value &&
        !bounds[2].expr->value->int_components.empty() && bounds[2].expr->value->int_components[0] == 0) {
        diags_.error(iter.children[3]->location, "range() step must not be zero");
        return std::nullopt;
    }
    return bounds;
}

void Checker::stmt_break_continue(const Stmt &s, std::vector<ir::StmtPtr> &out) {
    if (scope_->loop_depth == 0) {
        diags_.error(s.location,
                     std::string(s.kind == Stmt::Kind::Break ? "'break'" : "'continue'") + " outside a loop");
        return;
    }
    out.push_back(make_stmt(s.kind == Stmt::Kind::Break ? S::Break : S::Continue, s.location));
}

void Checker::stmt_return(const Stmt &s, std::vector<ir::StmtPtr> &out) {
    ir::Function &f = *scope_->function;
    auto st = make_stmt(S::Return, s.location);
    if (f.is_kernel) {
        if (s.value) diags_.error(s.value->location, "kernels cannot return a value");
        out.push_back(std::move(st));
        return;
    }
    if (!s.value) {
        if (f.return_type) diags_.error(s.location, "function '" + f.name + "' must return " + f.return_type->name());
        out.push_back(std::move(st));
        return;
    }
    if (scope_->declared_void) {
        diags_.error(s.value->location, "function '" + f.name + "' is declared '-> None' but returns a value");
        return;
    }
    // A declared tuple's element types convert the returned literals (return x, 0.0).
    std::vector<std::optional<Type>> hints;
    if (f.return_type && f.return_type->kind() == Type::Kind::Tuple)
        for (const Type &t : f.return_type->elements()) hints.emplace_back(t);
    Value v = s.value->kind == Expr::Kind::Tuple ? tuple(*s.value, hints) : expr(*s.value);
    if (!v.ok()) return;
    if (v.type().is_void()) {
        diags_.error(s.value->location,
                     "cannot return the result of '" + callee_name(*v.expr) + "', which returns nothing");
        return;
    }
    if (v.type().kind() == Type::Kind::Array && f.uses_fixed_arrays) {
        // Its zeros() arrays live in its frame: a returned view of one would outlive them.
        diags_.error(s.value->location, "function '" + f.name + "' makes a zeros() array, so it cannot return an array "
                                        "(the array would not outlive the call; Warp copies it): make the array in "
                                        "the caller and pass it in");
        return;
    }
    if (!f.return_type && !scope_->return_inferred) {
        settle(v);
        f.return_type = v.type();
        scope_->return_inferred = true;
        note_type(v.type());
    } else if (!f.return_type) {
        diags_.error(s.location, "function '" + f.name + "' returns a value here but returned nothing earlier");
        return;
    }
    if (!coerce(v, *f.return_type)) {
        diags_.error(s.value->location, "function '" + f.name + "' returns " + f.return_type->name() +
                                            (scope_->return_inferred ? " (from its first return)" : "") +
                                            ", this returns '" + v.type().name() + "'");
        return;
    }
    st->value = std::move(v.expr);
    out.push_back(std::move(st));
}

} // namespace weft::kernel::detail
