// Kernel factories: an undecorated top-level `def` that defines @wp.kernel /
// @wp.func functions and returns one of them, instantiated at module level:
//
//   def make_scale(factor: float):
//       @wp.kernel(module="unique")
//       def scale(x: wp.array(dtype=float)):
//           x[wp.tid()] *= factor
//       return scale
//
//   double = make_scale(2.0)
//
// Values the factory computes (`inv = 1.0 / factor`) are module constants of
// the instance, like arguments that are not literals or names.
//
// Warp runs the factory in Python and captures `factor` as a constant of the
// kernel built by that call. weft does the same without running Python: each
// instance is a copy of the nested definitions in which every free use of a
// factory parameter stands for its argument, and the returned definition is
// named by the variable it is assigned to (`double`), its siblings
// `<variable>__<name>`. The checker then sees ordinary functions; errors in
// an instance point into the factory's body, where the code is.
#include "kernel/call_arguments.hpp"
#include "kernel/parser_internal.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace weft::kernel::detail {

using ast::Expr;
using ast::ExprPtr;
using ast::Stmt;
using ast::StmtPtr;

namespace {

void collect_target_names(const Expr &target, std::set<std::string> &out) {
    if (target.kind == Expr::Kind::Name) out.insert(target.text);
    if (target.kind == Expr::Kind::Tuple || target.kind == Expr::Kind::Starred)
        for (const ExprPtr &c : target.children) collect_target_names(*c, out);
}

void collect_bound_names(const std::vector<StmtPtr> &body, std::set<std::string> &out) {
    for (const StmtPtr &s : body) {
        if (s->kind == Stmt::Kind::Assign || s->kind == Stmt::Kind::AugAssign || s->kind == Stmt::Kind::AnnAssign ||
            s->kind == Stmt::Kind::For)
            for (const ExprPtr &t : s->targets) collect_target_names(*t, out);
        collect_bound_names(s->body, out);
        collect_bound_names(s->orelse, out);
    }
}

/// The names a definition binds itself (parameters, assignment and loop
/// targets): as in Python, such a name is local everywhere in the function
/// and never refers to the enclosing factory's.
std::set<std::string> bound_names(const ast::FunctionDef &f) {
    std::set<std::string> out;
    for (const ast::Param &p : f.params) out.insert(p.name);
    collect_bound_names(f.body, out);
    return out;
}

using Substitutions = std::map<std::string, const Expr *>;

/// Replaces each free Name in `root` that `subs` maps, in place. A work list:
/// expression trees may be as deep as the parser allows.
void substitute(ExprPtr &root, const Substitutions &subs) {
    std::vector<ExprPtr *> work{&root};
    while (!work.empty()) {
        ExprPtr *e = work.back();
        work.pop_back();
        if ((*e)->kind == Expr::Kind::Name) {
            if (auto it = subs.find((*e)->text); it != subs.end()) {
                ExprPtr replacement = ast::clone(*it->second);
                // The use's location, so that an error in the instance points
                // at the code that uses the captured value.
                replacement->location = (*e)->location;
                *e = std::move(replacement);
            }
            continue;
        }
        for (ExprPtr &c : (*e)->children) work.push_back(&c);
        for (ast::Keyword &k : (*e)->keywords) work.push_back(&k.value);
    }
}

void substitute(std::vector<StmtPtr> &body, const Substitutions &subs) {
    for (StmtPtr &s : body) {
        for (ExprPtr &t : s->targets) substitute(t, subs);
        for (ExprPtr *e : {&s->value, &s->annotation, &s->test, &s->iter})
            if (*e) substitute(*e, subs);
        substitute(s->body, subs);
        substitute(s->orelse, subs);
    }
}

void substitute(ast::FunctionDef &f, const Substitutions &subs) {
    for (ast::Decorator &d : f.decorators) {
        for (ast::Keyword &k : d.keywords) substitute(k.value, subs);
        for (ExprPtr &a : d.args) substitute(a, subs);
    }
    for (ast::Param &p : f.params) {
        if (p.annotation) substitute(p.annotation, subs);
        if (p.default_value) substitute(p.default_value, subs);
    }
    if (f.returns) substitute(f.returns, subs);
    substitute(f.body, subs);
}

bool is_literal(const Expr &e) {
    switch (e.kind) {
    case Expr::Kind::Int:
    case Expr::Kind::Float:
    case Expr::Kind::Bool:
    case Expr::Kind::String:
        return true;
    case Expr::Kind::Unary:
        return (e.text == "-" || e.text == "+") &&
               (e.children[0]->kind == Expr::Kind::Int || e.children[0]->kind == Expr::Kind::Float);
    default:
        return false;
    }
}

const std::string &root_name(const Expr &e) {
    const Expr *cur = &e;
    while (cur->kind == Expr::Kind::Attribute) cur = cur->children.front().get();
    return cur->text;
}

const char *const factory_body_rule = "holds only @wp.kernel and @wp.func definitions, values computed from its "
                                      "parameters (`name = expression`) and `return NAME`";

/// `name = expression` in a factory's body: a value of each instance.
bool add_factory_value(ast::Factory &factory, Stmt &s) {
    const bool assign = (s.kind == Stmt::Kind::Assign && s.targets.size() == 1) ||
                        (s.kind == Stmt::Kind::AnnAssign && s.value);
    if (!assign || s.targets[0]->kind != Expr::Kind::Name) return false;
    ast::TopLevelAssign value;
    value.name = s.targets[0]->text;
    value.location = s.targets[0]->location;
    value.value = std::move(s.value);
    factory.values.push_back(std::move(value));
    return true;
}

} // namespace

void Parser::parse_factory(ast::FunctionDef header) {
    ast::Factory factory;
    factory.name = std::move(header.name);
    factory.params = std::move(header.params);
    factory.location = header.location;
    if (header.returns) report(header.returns->location, "a kernel factory's return annotation is not supported");
    const std::size_t errors_at_start = diags_.error_count();
    // The statements before the first definition: values and docstrings.
    for (StmtPtr &s : header.body) {
        if (s->kind == Stmt::Kind::Pass || (s->kind == Stmt::Kind::Expr && s->value->kind == Expr::Kind::String)) continue;
        if (!add_factory_value(factory, *s))
            report(s->location, "kernel factory '" + factory.name + "' " + factory_body_rule +
                                    "; other statements are host code, which weft does not run");
    }
    // parse_block stopped at the first definition, inside the block.
    while (!check(TokenKind::Dedent) && !check(TokenKind::EndOfFile)) {
        const std::size_t start = consumed_;
        const bool compound = factory_item(factory);
        if (failed_) {
            recover(compound);
            // A broken nested definition leaves its body behind: skip it, as
            // the module's top level would, rather than report every line.
            if (check(TokenKind::Indent)) skip_block();
        }
        failed_ = false;
        if (consumed_ == start) advance();
    }
    if (check(TokenKind::Dedent)) advance();
    if (factory.returned.empty()) {
        // A broken return, or a syntax error that swallowed it, is reported already.
        if (factory.returned_location.line != 0 || diags_.error_count() != errors_at_start) return;
        report(factory.location, "kernel factory '" + factory.name +
                                     "' must end with `return NAME`, naming the @wp.kernel or @wp.func it makes");
        return;
    }
    // Python rebinds the name: later instances use the later definition.
    auto same = std::find_if(factories_.begin(), factories_.end(),
                             [&](const ast::Factory &f) { return f.name == factory.name; });
    if (same != factories_.end()) *same = std::move(factory);
    else factories_.push_back(std::move(factory));
}

bool Parser::factory_item(ast::Factory &factory) {
    const Token t = peek();
    const std::string where = "kernel factory '" + factory.name + "'";
    if (!factory.returned.empty() && !t.is_op("@") && t.kind != TokenKind::String) {
        fail(t.location, "code after the return of " + where + " never runs; remove it");
        return false;
    }
    if (t.is_op("@")) {
        std::size_t k = 0;
        while (peek(k).kind != TokenKind::EndOfFile && !peek(k).is_keyword("def") && !peek(k).is_keyword("class")) ++k;
        if (peek(k).is_keyword("class")) {
            report(t.location, "classes inside a " + where + " are not supported; define the @wp.struct at module level");
            while (check_op("@")) skip_line();
            skip_line(); // the class header
            if (check(TokenKind::Indent)) skip_block();
            return false;
        }
        if (!factory.returned.empty()) {
            fail(t.location, "a definition after the return of " + where + " is never made; move it before the return");
            return true;
        }
        function_sink_ = &factory.functions;
        const bool compound = parse_decorated();
        function_sink_ = nullptr;
        return compound;
    }
    if (t.is_keyword("def")) {
        fail(t.location, "function inside " + where + " needs @wp.func or @wp.kernel; host code is not supported");
        return true;
    }
    if (t.is_keyword("return")) {
        factory.returned_location = advance().location; // a return, even a bad one: no second error for its absence
        if (!check(TokenKind::Name) || !(peek(1).kind == TokenKind::Newline || peek(1).kind == TokenKind::EndOfFile)) {
            fail(peek().location, where + " must return one of its @wp.kernel or @wp.func definitions by name");
            return false;
        }
        const Token name = advance();
        const bool defined = std::any_of(factory.functions.begin(), factory.functions.end(),
                                         [&](const ast::FunctionDef &f) { return f.name == name.text; });
        if (!defined) {
            fail(name.location, "'" + name.text + "' is not a @wp.kernel or @wp.func defined in " + where);
            return false;
        }
        factory.returned = name.text;
        factory.returned_location = name.location;
        advance(); // NEWLINE
        return false;
    }
    const std::string allowed = where + " " + factory_body_rule;
    if (t.kind == TokenKind::Keyword && !t.is_keyword("pass") && !t.is_keyword("not") && !t.is_keyword("lambda")) {
        fail(t.location, allowed + "; other statements are host code, which weft does not run");
        return starts_compound(t);
    }
    StmtPtr s = simple_statement(BlockKind::Function);
    if (failed_ || !s) return false;
    if (s->kind == Stmt::Kind::Pass || (s->kind == Stmt::Kind::Expr && s->value->kind == Expr::Kind::String)) {
        // a docstring
    } else if (!add_factory_value(factory, *s)) {
        fail(t.location, allowed + "; other statements are host code, which weft does not run");
        return false;
    }
    more_on_line();
    return false;
}

const ast::Factory *Parser::find_factory(const std::string &name) const {
    for (const ast::Factory &f : factories_)
        if (f.name == name) return &f;
    return nullptr;
}

void Parser::instantiate_factory(const ast::Factory &factory, const Expr &call, const std::string &target) {
    const std::string what = "'" + factory.name + "()'";
    // Bind the arguments as Python would.
    for (std::size_t i = 1; i < call.children.size(); ++i)
        if (call.children[i]->kind == Expr::Kind::Starred) {
            report(call.children[i]->location, "unpacking arguments of kernel factory " + what +
                                                   " is not supported; pass each one");
            return;
        }
    ArgumentSlots placed = place_arguments(call, param_names(factory.params));
    switch (placed.problem) {
    case ArgumentSlots::Problem::None: break;
    case ArgumentSlots::Problem::TooMany:
        report(call.children[factory.params.size() + 1]->location,
               what + " takes " + std::to_string(factory.params.size()) + " argument(s), got " +
                   std::to_string(call.children.size() - 1));
        return;
    case ArgumentSlots::Problem::UnknownKeyword:
        report(placed.keyword->location, what + " has no parameter '" + placed.keyword->name + "'");
        return;
    case ArgumentSlots::Problem::Repeated:
        report(placed.keyword->location, what + " got parameter '" + placed.keyword->name + "' twice");
        return;
    }
    std::vector<const Expr *> &args = placed.slots;
    bool ok = true;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (!args[i]) args[i] = factory.params[i].default_value.get();
        if (!args[i]) {
            report(call.location, what + " is missing its argument '" + factory.params[i].name + "'");
            ok = false;
        }
    }
    if (!ok) return;

    std::vector<std::set<std::string>> locals; // per nested definition
    std::set<std::string> bound;
    for (const ast::FunctionDef &f : factory.functions) {
        locals.push_back(bound_names(f));
        bound.insert(locals.back().begin(), locals.back().end());
    }

    // What each free name of the factory's body stands for in this instance.
    std::vector<ExprPtr> owned;
    Substitutions subs;
    auto name_expr = [&](const std::string &name, SourceLocation loc) {
        auto e = std::make_unique<Expr>(Expr::Kind::Name, loc);
        e->text = name;
        owned.push_back(std::move(e));
        return owned.back().get();
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const Expr &a = *args[i];
        const bool by_name = (a.kind == Expr::Kind::Name || a.kind == Expr::Kind::Attribute) && !bound.count(root_name(a));
        if (is_literal(a) || by_name) {
            subs[factory.params[i].name] = &a;
            continue;
        }
        // Anything else is evaluated once, where the call is, as Python does:
        // a module constant of the instance (folded at module precision).
        ast::TopLevelAssign c;
        c.name = target + "__" + factory.params[i].name;
        c.location = a.location;
        c.value = ast::clone(a);
        subs[factory.params[i].name] = name_expr(c.name, a.location);
        module_.order.emplace_back('a', module_.assignments.size());
        module_.assignments.push_back(std::move(c));
    }
    // The factory's own values, computed per call like its arguments.
    for (const ast::TopLevelAssign &v : factory.values) {
        ast::TopLevelAssign c;
        c.name = target + "__" + v.name;
        c.location = v.location;
        c.value = ast::clone(*v.value);
        substitute(c.value, subs);
        subs[v.name] = name_expr(c.name, v.location);
        module_.order.emplace_back('a', module_.assignments.size());
        module_.assignments.push_back(std::move(c));
    }
    auto instance_name = [&](const std::string &name) { return name == factory.returned ? target : target + "__" + name; };
    for (const ast::FunctionDef &f : factory.functions) subs[f.name] = name_expr(instance_name(f.name), f.location);

    for (std::size_t d = 0; d < factory.functions.size(); ++d) {
        const ast::FunctionDef &f = factory.functions[d];
        ast::FunctionDef instance = ast::clone(f);
        instance.name = instance_name(f.name);
        instance.factory_call = target + " = " + factory.name + "(...)";
        instance.factory_call_location = call.location;
        Substitutions own = subs;
        for (const std::string &local : locals[d]) own.erase(local);
        substitute(instance, own);
        module_.order.emplace_back('f', module_.functions.size());
        module_.functions.push_back(std::move(instance));
    }
}

} // namespace weft::kernel::detail
