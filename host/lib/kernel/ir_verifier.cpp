// The lowered form's rules, checked (run after lowering in tests and debug
// builds). A failure here is weft's bug, never the user's: the messages are
// for weft's developers and name the function and statement.
#include "weft/kernel/lower.hpp"

namespace weft::kernel {

namespace {

using K = ir::Expr::Kind;
using S = ir::Stmt::Kind;

class Verifier {
public:
    explicit Verifier(const ir::Module &m) : m_(m) {}

    std::vector<std::string> run() {
        if (!m_.lowered) problems_.push_back("module '" + m_.name + "' is not lowered");
        for (const ir::Function &f : m_.functions) {
            f_ = &f;
            block(f.body, 0);
        }
        return std::move(problems_);
    }

private:
    const ir::Module &m_;
    const ir::Function *f_ = nullptr;
    const ir::Stmt *s_ = nullptr;
    std::vector<std::string> problems_;

    void fail(const std::string &what) {
        problems_.push_back("function '" + f_->mangled_name + "', statement at " +
                            (s_ ? std::to_string(s_->location.line) + ":" + std::to_string(s_->location.column) : "?") +
                            ": " + what);
    }

    bool local_ok(int index) {
        if (index >= 0 && static_cast<std::size_t>(index) < f_->locals.size()) return true;
        fail("local index " + std::to_string(index) + " out of range");
        return false;
    }

    const Type *local_type(int index) {
        return local_ok(index) ? &f_->locals[static_cast<std::size_t>(index)].type : nullptr;
    }

    void atom(const ir::Expr *e, const char *where) {
        if (!e) {
            fail(std::string("missing ") + where);
            return;
        }
        if (!e->is_atom()) fail(std::string(where) + " is not an atom (a " + kind_name(e->kind) + " expression)");
        else ref(*e);
    }

    static const char *kind_name(K k) {
        switch (k) {
        case K::Literal: return "literal";
        case K::String: return "string";
        case K::Local: return "local";
        case K::Param: return "param";
        case K::Constant: return "constant";
        case K::Builtin: return "builtin call";
        case K::Intrinsic: return "intrinsic call";
        case K::Call: return "function call";
        case K::Tile: return "tile operation";
        case K::Construct: return "construct";
        case K::Cast: return "cast";
        case K::Field: return "field";
        case K::Index: return "index";
        case K::Shape: return "shape";
        case K::View: return "view";
        case K::Gather: return "gather";
        case K::Select: return "select";
        case K::And: return "and";
        case K::Or: return "or";
        case K::Compare: return "compare";
        case K::Not: return "not";
        }
        return "?";
    }

    /// A reference to a local or parameter has that variable's type.
    void ref(const ir::Expr &e) {
        if (e.kind == K::Local) {
            if (const Type *t = local_type(e.index); t && *t != e.type)
                fail("local '" + f_->locals[static_cast<std::size_t>(e.index)].name + "' used as " + e.type.name() +
                     " but declared " + t->name());
        } else if (e.kind == K::Param) {
            if (e.index < 0 || static_cast<std::size_t>(e.index) >= f_->params.size()) fail("parameter index out of range");
            else if (f_->params[static_cast<std::size_t>(e.index)].type != e.type)
                fail("parameter '" + f_->params[static_cast<std::size_t>(e.index)].name + "' used with the wrong type");
        } else if (e.kind == K::Literal && (!e.value || e.value->type != e.type)) {
            fail("literal without a value of its type");
        }
    }

    /// One operation over atoms (or an atom).
    void operation(const ir::Expr &e) {
        switch (e.kind) {
        case K::Select:
        case K::And:
        case K::Or:
        case K::Compare: fail(std::string("'") + kind_name(e.kind) + "' survived lowering"); return;
        default: break;
        }
        if (e.is_atom()) {
            ref(e);
            return;
        }
        const ir::Function *called = e.kind == K::Call && e.index >= 0 &&
                                             static_cast<std::size_t>(e.index) < m_.functions.size()
                                         ? &m_.functions[static_cast<std::size_t>(e.index)]
                                         : nullptr;
        for (std::size_t i = ir::tile_callback(e) ? 1 : 0; i < e.args.size(); ++i) {
            if (called && i < called->params.size() && called->params[i].reference) path(*e.args[i]);
            else atom(e.args[i].get(), "an operand");
        }
        if (e.kind == K::Builtin) {
            if (!e.overload) return fail("builtin call without an overload");
            const BuiltinOverload &o = *e.overload;
            if (o.params.size() != e.args.size()) return fail("call of " + o.name + " with the wrong number of arguments");
            for (std::size_t i = 0; i < e.args.size(); ++i)
                if (o.params[i].type != e.args[i]->type)
                    fail("argument " + std::to_string(i) + " of " + o.name + " is " + e.args[i]->type.name() +
                         ", the overload takes " + o.params[i].type.name());
            const Type result = o.result ? *o.result : Type::void_type();
            if (result != e.type) fail("call of " + o.name + " typed " + e.type.name() + ", returns " + result.name());
        } else if (e.kind == K::Call) {
            if (e.index < 0 || static_cast<std::size_t>(e.index) >= m_.functions.size())
                return fail("call of an unknown function");
            const ir::Function &callee = m_.functions[static_cast<std::size_t>(e.index)];
            if (callee.params.size() != e.args.size()) return fail("call of " + callee.mangled_name + " with the wrong arity");
            for (std::size_t i = 0; i < e.args.size(); ++i)
                if (callee.params[i].type != e.args[i]->type)
                    fail("argument " + std::to_string(i) + " of " + callee.mangled_name + " has the wrong type");
        }
    }

    /// An lvalue path: a local or parameter, then fields and indices over atoms.
    void path(const ir::Expr &e) {
        if (e.kind == K::Local || e.kind == K::Param) return ref(e);
        if (e.kind == K::Index && !e.args.empty() && e.args[0]->type.kind() == Type::Kind::Array) {
            for (const ir::ExprPtr &a : e.args) atom(a.get(), "an element index or array");
            return;
        }
        if ((e.kind == K::Field || e.kind == K::Index) && !e.args.empty()) {
            path(*e.args[0]);
            for (std::size_t i = 1; i < e.args.size(); ++i) atom(e.args[i].get(), "an index");
            return;
        }
        fail(std::string("a store target is a ") + kind_name(e.kind) + ", not an lvalue path");
    }

    void block(const std::vector<ir::StmtPtr> &body, int loops) {
        for (const ir::StmtPtr &s : body) statement(*s, loops);
    }

    void statement(const ir::Stmt &s, int loops) {
        s_ = &s;
        switch (s.kind) {
        case S::Declare:
        case S::Assign:
            if (!s.value) return fail("assignment without a value");
            operation(*s.value);
            if (const Type *t = local_type(s.index); t && *t != s.value->type)
                fail("assigns " + s.value->type.name() + " to local '" + f_->locals[static_cast<std::size_t>(s.index)].name +
                     "' of type " + t->name());
            return;
        case S::Store:
            if (!s.target || !s.value) return fail("store without a target or value");
            path(*s.target);
            atom(s.value.get(), "a stored value");
            if (s.target->type != s.value->type)
                fail("stores " + s.value->type.name() + " into " + s.target->type.name());
            return;
        case S::Unpack: {
            if (!s.value) return fail("unpack without a value");
            operation(*s.value);
            if (s.value->type.kind() != Type::Kind::Tuple) return fail("unpacks a non-tuple");
            const auto &elements = s.value->type.elements();
            if (elements.size() != s.targets.size()) return fail("unpacks the wrong number of values");
            for (std::size_t i = 0; i < elements.size(); ++i)
                if (const Type *t = local_type(s.targets[i]); t && *t != elements[i]) fail("unpacks into a local of another type");
            return;
        }
        case S::Eval:
            if (!s.value) return fail("evaluation without a value");
            operation(*s.value);
            if (s.value->kind != K::Builtin && s.value->kind != K::Intrinsic && s.value->kind != K::Call &&
                s.value->kind != K::Tile)
                fail("evaluates a " + std::string(kind_name(s.value->kind)) + " for no effect");
            return;
        case S::If:
            atom(s.cond.get(), "an if condition");
            block(s.body, loops);
            s_ = &s;
            block(s.orelse, loops);
            return;
        case S::For:
            if (s.args.size() != 3) return fail("for loop without start, stop and step");
            for (const ir::ExprPtr &a : s.args) atom(a.get(), "a range bound");
            local_ok(s.index);
            block(s.body, loops + 1);
            return;
        case S::While:
            atom(s.cond.get(), "a while condition");
            block(s.body, loops + 1);
            return;
        case S::Break:
        case S::Continue:
            if (!loops) fail("break or continue outside a loop");
            return;
        case S::Return:
            if (s.value) {
                atom(s.value.get(), "a returned value");
                if (!f_->return_type || *f_->return_type != s.value->type) fail("returns a value of the wrong type");
            }
            return;
        case S::AugAssign: fail("an augmented assignment survived lowering"); return;
        }
    }
};

} // namespace

std::vector<std::string> verify_lowered(const ir::Module &module) { return Verifier(module).run(); }

} // namespace weft::kernel
