// Typed IR -> lowered IR: every subexpression evaluated once, in Python's
// order, into a named temporary; short-circuit and conditional evaluation as
// control flow; augmented assignment with its target evaluated once, atomic
// on array elements.
#include "weft/kernel/lower.hpp"

#include "weft/support/error.hpp"

namespace weft::kernel {

namespace {

using K = ir::Expr::Kind;
using S = ir::Stmt::Kind;

class FunctionLowerer {
public:
    FunctionLowerer(ir::Function &f, const ir::Module &m) : f_(f), m_(m) {}

    void run() {
        std::vector<ir::StmtPtr> body = std::move(f_.body);
        f_.body.clear();
        block(body, f_.body);
    }

private:
    ir::Function &f_;
    const ir::Module &m_;
    std::vector<ir::StmtPtr> *out_ = nullptr;
    int next_temp_ = 0;

    ir::StmtPtr stmt(S kind, SourceLocation at) { return std::make_unique<ir::Stmt>(kind, at); }

    ir::ExprPtr local_ref(int index, SourceLocation at) {
        auto e = std::make_unique<ir::Expr>(K::Local, at);
        e->index = index;
        e->type = f_.locals[static_cast<std::size_t>(index)].type;
        e->name = f_.locals[static_cast<std::size_t>(index)].name;
        return e;
    }

    int new_temp(const Type &type, SourceLocation at) {
        f_.locals.push_back({"_t" + std::to_string(next_temp_++), type, at, true});
        return static_cast<int>(f_.locals.size() - 1);
    }

    void emit(ir::StmtPtr s) { out_->push_back(std::move(s)); }

    void emit_set(S kind, int local, ir::ExprPtr value, SourceLocation at) {
        auto s = stmt(kind, at);
        s->index = local;
        s->value = std::move(value);
        emit(std::move(s));
    }

    /// Lowers `e` to an atom, emitting what computes it.
    ir::ExprPtr atom(ir::ExprPtr e) {
        if (e->is_atom()) return e;
        const SourceLocation at = e->location;
        const Type type = e->type;
        ir::ExprPtr op = operation(std::move(e));
        if (op->is_atom()) return op;
        const int t = new_temp(type, at);
        emit_set(S::Declare, t, std::move(op), at);
        return local_ref(t, at);
    }

    /// Lowers `e` to one operation over atoms (or an atom), emitting what
    /// computes its operands, left to right.
    ir::ExprPtr operation(ir::ExprPtr e) {
        switch (e->kind) {
        case K::Literal:
        case K::String:
        case K::Local:
        case K::Param:
        case K::Constant: return e;
        case K::Call: {
            // A wp.ref argument stays the caller's lvalue (its indices become atoms).
            const ir::Function &callee = m_.functions[static_cast<std::size_t>(e->index)];
            for (std::size_t i = 0; i < e->args.size(); ++i)
                e->args[i] = i < callee.params.size() && callee.params[i].reference ? lvalue(std::move(e->args[i]))
                                                                                      : atom(std::move(e->args[i]));
            return e;
        }
        case K::Tile:
            // tile_map / tile_reduce: args[0] is the per-element call over placeholders, not evaluated here.
            for (std::size_t i = tile_callback(*e) ? 1 : 0; i < e->args.size(); ++i) e->args[i] = atom(std::move(e->args[i]));
            return e;
        case K::Builtin:
        case K::Intrinsic:
        case K::Construct:
        case K::Cast:
        case K::Field:
        case K::Index:
        case K::Shape:
        case K::View:
        case K::Gather:
            for (ir::ExprPtr &a : e->args) a = atom(std::move(a));
            return e;
        case K::Not:
            e->args[0] = atom(std::move(e->args[0]));
            return e;
        case K::Select: return select(std::move(e));
        case K::And:
        case K::Or: return short_circuit(std::move(e));
        case K::Compare: return compare_chain(std::move(e));
        }
        throw InternalError("lower: unknown expression kind");
    }

    /// `body if cond else orelse`: only the chosen branch is evaluated.
    ir::ExprPtr select(ir::ExprPtr e) {
        const SourceLocation at = e->location;
        ir::ExprPtr cond = atom(std::move(e->args[0]));
        const int t = new_temp(e->type, at);
        auto branch = stmt(S::If, at);
        branch->cond = std::move(cond);
        branch_into(branch->body, std::move(e->args[1]), t);
        branch_into(branch->orelse, std::move(e->args[2]), t);
        emit(std::move(branch));
        return local_ref(t, at);
    }

    /// Evaluates `value` into local `t` with the statements going to `where`.
    void branch_into(std::vector<ir::StmtPtr> &where, ir::ExprPtr value, int t) {
        std::vector<ir::StmtPtr> *saved = out_;
        out_ = &where;
        const SourceLocation at = value->location;
        emit_set(S::Assign, t, operation(std::move(value)), at);
        out_ = saved;
    }

    ir::ExprPtr as_bool(ir::ExprPtr a) {
        if (a->type.is_bool()) return a;
        auto c = std::make_unique<ir::Expr>(K::Cast, a->location);
        c->type = Type::scalar(Scalar::Bool);
        c->args.push_back(std::move(a));
        return c;
    }

    /// a and b and c: each operand only while the result is still undecided.
    /// One `if` per operand, side by side rather than nested: once t is
    /// decided every later test fails. Nested, 50,000 operands overflowed the
    /// emitter's stack and 255 exceeded Clang's bracket depth (issue 18).
    ir::ExprPtr short_circuit(ir::ExprPtr e) {
        const SourceLocation at = e->location;
        const bool is_and = e->kind == K::And;
        const int t = new_temp(Type::scalar(Scalar::Bool), at);
        std::vector<ir::StmtPtr> *saved = out_;
        for (std::size_t i = 0; i < e->args.size(); ++i) {
            ir::StmtPtr next;
            if (i > 0) {
                // and: go on while t holds; or: go on while it does not.
                next = stmt(S::If, at);
                if (is_and) {
                    next->cond = local_ref(t, at);
                } else {
                    auto negated = std::make_unique<ir::Expr>(K::Not, at);
                    negated->type = Type::scalar(Scalar::Bool);
                    negated->args.push_back(local_ref(t, at));
                    const int n = new_temp(Type::scalar(Scalar::Bool), at);
                    emit_set(S::Declare, n, std::move(negated), at);
                    next->cond = local_ref(n, at);
                }
                out_ = &next->body;
            }
            ir::ExprPtr value = e->args[i]->type.is_bool() ? operation(std::move(e->args[i]))
                                                           : as_bool(atom(std::move(e->args[i])));
            emit_set(i == 0 ? S::Declare : S::Assign, t, std::move(value), at);
            out_ = saved;
            if (next) emit(std::move(next));
        }
        return local_ref(t, at);
    }

    /// a < b < c: operands once each, in order; c only when a < b holds.
    ir::ExprPtr compare_chain(ir::ExprPtr e) {
        const SourceLocation at = e->location;
        auto comparison = [&](std::size_t i, ir::ExprPtr left, ir::ExprPtr right) {
            auto cmp = std::make_unique<ir::Expr>(K::Builtin, at);
            cmp->type = Type::scalar(Scalar::Bool);
            cmp->overload = e->chain[i];
            cmp->name = e->chain[i]->name;
            cmp->args.push_back(std::move(left));
            cmp->args.push_back(std::move(right));
            return cmp;
        };
        ir::ExprPtr left = atom(std::move(e->args[0]));
        if (e->chain.size() == 1) return comparison(0, std::move(left), atom(std::move(e->args[1])));
        // Side by side, as short_circuit: locals are function-wide, so an
        // operand computed under one `if` is there for the next comparison.
        int t = -1; // numbered after the first right operand's temporaries
        std::vector<ir::StmtPtr> *saved = out_;
        for (std::size_t i = 0; i < e->chain.size(); ++i) {
            ir::StmtPtr next;
            if (i > 0) {
                next = stmt(S::If, at);
                next->cond = local_ref(t, at);
                out_ = &next->body;
            }
            ir::ExprPtr right = atom(std::move(e->args[i + 1]));
            if (t < 0) t = new_temp(Type::scalar(Scalar::Bool), at);
            emit_set(i == 0 ? S::Declare : S::Assign, t, comparison(i, std::move(left), right->clone()), at);
            left = std::move(right);
            out_ = saved;
            if (next) emit(std::move(next));
        }
        return local_ref(t, at);
    }

    /// An lvalue path with its indices (and any computed base) as atoms: the
    /// root stays a local or parameter, or an array value held in a temporary.
    ir::ExprPtr lvalue(ir::ExprPtr e) {
        if (e->kind == K::Local || e->kind == K::Param) return e;
        if (e->kind == K::Index && e->args[0]->type.kind() == Type::Kind::Array) {
            // Array element: the array is a value (a view); only its data is written.
            for (ir::ExprPtr &a : e->args) a = atom(std::move(a));
            return e;
        }
        if (e->kind == K::Field || e->kind == K::Index) {
            e->args[0] = lvalue(std::move(e->args[0]));
            for (std::size_t i = 1; i < e->args.size(); ++i) e->args[i] = atom(std::move(e->args[i]));
            return e;
        }
        throw InternalError("lower: not an lvalue");
    }

    void store(ir::ExprPtr target, ir::ExprPtr value, SourceLocation at) {
        if (target->kind == K::Local) {
            emit_set(S::Assign, target->index, std::move(value), at);
            return;
        }
        auto s = stmt(S::Store, at);
        s->target = std::move(target);
        s->value = atom(std::move(value));
        emit(std::move(s));
    }

    void aug_assign(ir::Stmt &s) {
        const SourceLocation at = s.location;
        if (s.atomic) {
            // arr[i] += v: atomic_add(arr, i, v), its result unused.
            ir::ExprPtr element = std::move(s.target);
            auto call = std::make_unique<ir::Expr>(K::Intrinsic, at);
            call->intrinsic = *s.atomic;
            call->name = std::string(ir::intrinsic_name(*s.atomic));
            call->type = element->type;
            for (ir::ExprPtr &a : element->args) call->args.push_back(atom(std::move(a)));
            call->args.push_back(atom(std::move(s.value)));
            auto eval = stmt(S::Eval, at);
            eval->value = std::move(call);
            emit(std::move(eval));
            return;
        }
        // Python's order: the target's parts, the current value, the operand, then the store.
        ir::ExprPtr path = lvalue(std::move(s.target));
        ir::ExprPtr current = atom(path->clone());
        ir::ExprPtr operand = atom(std::move(s.value));
        auto combined = std::make_unique<ir::Expr>(K::Builtin, at);
        combined->type = path->type;
        combined->overload = s.overload;
        combined->name = s.overload->name;
        combined->args.push_back(std::move(current));
        combined->args.push_back(std::move(operand));
        store(std::move(path), std::move(combined), at);
    }

    ir::ExprPtr bool_literal(bool value, SourceLocation at) {
        auto e = std::make_unique<ir::Expr>(K::Literal, at);
        e->type = Type::scalar(Scalar::Bool);
        e->value = ir::ConstantValue{e->type, {value ? 1.0 : 0.0}, {value ? 1 : 0}};
        return e;
    }

    /// if a: A elif b: B ... else: E, as ifs side by side rather than each
    /// elif nested in the else before it (which exceeded Clang's bracket depth
    /// at 255 elifs and overflowed the emitter's stack further on):
    ///     pending = True
    ///     if a: pending = False; A
    ///     if pending: (b's operands); if b: pending = False; B
    ///     ...
    ///     if pending: E
    /// A condition is evaluated only when every one before it was false, as in Python.
    void elif_chain(ir::StmtPtr first) {
        const SourceLocation at = first->location;
        const int pending = new_temp(Type::scalar(Scalar::Bool), at);
        emit_set(S::Declare, pending, bool_literal(true, at), at);
        std::vector<ir::StmtPtr> *saved = out_;
        ir::StmtPtr current = std::move(first);
        for (bool guarded = false; current; guarded = true) {
            std::vector<ir::StmtPtr> orelse = std::move(current->orelse);
            current->orelse.clear();
            ir::StmtPtr next;
            if (orelse.size() == 1 && orelse[0]->kind == S::If) {
                next = std::move(orelse[0]);
                orelse.clear();
            }
            ir::StmtPtr guard;
            if (guarded) {
                guard = stmt(S::If, current->location);
                guard->cond = local_ref(pending, at);
                out_ = &guard->body;
            }
            current->cond = atom(std::move(current->cond));
            std::vector<ir::StmtPtr> body = std::move(current->body);
            current->body.clear();
            std::vector<ir::StmtPtr> *outer = out_;
            out_ = &current->body;
            emit_set(S::Assign, pending, bool_literal(false, current->location), current->location);
            for (ir::StmtPtr &b : body) statement(std::move(b));
            out_ = outer;
            emit(std::move(current));
            out_ = saved;
            if (guard) emit(std::move(guard));
            if (!next && !orelse.empty()) {
                auto otherwise = stmt(S::If, orelse.front()->location);
                otherwise->cond = local_ref(pending, at);
                block(orelse, otherwise->body);
                emit(std::move(otherwise));
            }
            current = std::move(next);
        }
    }

    void block(std::vector<ir::StmtPtr> &in, std::vector<ir::StmtPtr> &out) {
        std::vector<ir::StmtPtr> *saved = out_;
        out_ = &out;
        for (ir::StmtPtr &s : in) statement(std::move(s));
        out_ = saved;
    }

    void statement(ir::StmtPtr s) {
        switch (s->kind) {
        case S::Declare:
        case S::Assign:
        case S::Unpack:
        case S::Eval:
            s->value = operation(std::move(s->value));
            emit(std::move(s));
            return;
        case S::Store: {
            // Python evaluates the value before the target's subexpressions.
            ir::ExprPtr value = atom(std::move(s->value));
            store(lvalue(std::move(s->target)), std::move(value), s->location);
            return;
        }
        case S::AugAssign: aug_assign(*s); return;
        case S::If: {
            if (s->orelse.size() == 1 && s->orelse[0]->kind == S::If) {
                elif_chain(std::move(s));
                return;
            }
            s->cond = atom(std::move(s->cond));
            std::vector<ir::StmtPtr> body = std::move(s->body), orelse = std::move(s->orelse);
            s->body.clear();
            s->orelse.clear();
            block(body, s->body);
            block(orelse, s->orelse);
            emit(std::move(s));
            return;
        }
        case S::For: {
            // Evaluated once, before the loop, into temporaries: assigning a variable used
            // as a bound inside the body does not change the iteration (Python's range).
            for (ir::ExprPtr &a : s->args) {
                a = atom(std::move(a));
                const bool fresh = a->kind == K::Local && f_.locals[static_cast<std::size_t>(a->index)].temporary;
                if (a->kind != K::Literal && a->kind != K::Constant && !fresh) {
                    const SourceLocation at = a->location;
                    const Type type = a->type;
                    const int t = new_temp(type, at);
                    emit_set(S::Declare, t, std::move(a), at);
                    a = local_ref(t, at);
                }
            }
            std::vector<ir::StmtPtr> body = std::move(s->body);
            s->body.clear();
            block(body, s->body);
            emit(std::move(s));
            return;
        }
        case S::While: {
            std::vector<ir::StmtPtr> body = std::move(s->body);
            s->body.clear();
            if (s->cond->is_atom()) {
                block(body, s->body);
                emit(std::move(s));
                return;
            }
            // The condition is re-evaluated on every iteration: while True: <cond>; if not c: break; body.
            const SourceLocation at = s->location;
            ir::ExprPtr cond = std::move(s->cond);
            auto truth = std::make_unique<ir::Expr>(K::Literal, at);
            truth->type = Type::scalar(Scalar::Bool);
            truth->value = ir::ConstantValue{truth->type, {1.0}, {1}};
            s->cond = std::move(truth);
            std::vector<ir::StmtPtr> *saved = out_;
            out_ = &s->body;
            ir::ExprPtr c = atom(std::move(cond));
            auto negated = std::make_unique<ir::Expr>(K::Not, at);
            negated->type = Type::scalar(Scalar::Bool);
            negated->args.push_back(std::move(c));
            const int n = new_temp(Type::scalar(Scalar::Bool), at);
            emit_set(S::Declare, n, std::move(negated), at);
            auto exit = stmt(S::If, at);
            exit->cond = local_ref(n, at);
            exit->body.push_back(stmt(S::Break, at));
            emit(std::move(exit));
            for (ir::StmtPtr &b : body) statement(std::move(b));
            out_ = saved;
            emit(std::move(s));
            return;
        }
        case S::Return:
            if (s->value) s->value = atom(std::move(s->value));
            emit(std::move(s));
            return;
        case S::Break:
        case S::Continue: emit(std::move(s)); return;
        }
        throw InternalError("lower: unknown statement kind");
    }
};

} // namespace

void lower(ir::Module &module) {
    if (module.lowered) return;
    for (ir::Function &f : module.functions) FunctionLowerer(f, module).run();
    module.lowered = true;
#ifndef NDEBUG
    // Debug builds check every lowering; release builds leave it to the tests.
    if (const std::vector<std::string> problems = verify_lowered(module); !problems.empty()) {
        std::string text = "lowered IR of module '" + module.name + "' is invalid:";
        for (const std::string &p : problems) text += "\n  " + p;
        throw InternalError(text);
    }
#endif
}

} // namespace weft::kernel
