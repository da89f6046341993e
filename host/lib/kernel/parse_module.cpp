// The module's top level: imports, constants, decorators, function and class
// definitions, and parse_module(), the entry point.
#include "weft/kernel/parser.hpp"

#include "parser_internal.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace weft::kernel {

namespace detail {

using ast::Expr;
using ast::ExprPtr;
using ast::Stmt;
using ast::StmtPtr;

namespace {

constexpr const char *top_level_message =
    "top-level statements other than imports, constants, functions and classes are not supported";

ExprPtr clone_tree(const Expr &root) {
    auto copy_node = [](const Expr &e) {
        auto c = std::make_unique<Expr>(e.kind, e.location);
        c->text = e.text;
        c->int_value = e.int_value;
        c->float_value = e.float_value;
        c->bool_value = e.bool_value;
        c->ops = e.ops;
        return c;
    };
    // An explicit work list: trees may be max_tree_height deep.
    ExprPtr out = copy_node(root);
    std::vector<std::pair<const Expr *, Expr *>> work{{&root, out.get()}};
    while (!work.empty()) {
        const auto [from, to] = work.back();
        work.pop_back();
        for (const ExprPtr &child : from->children) {
            to->children.push_back(copy_node(*child));
            work.emplace_back(child.get(), to->children.back().get());
        }
        for (const ast::Keyword &k : from->keywords) {
            to->keywords.push_back(ast::Keyword{k.name, copy_node(*k.value), k.location});
            work.emplace_back(k.value.get(), to->keywords.back().value.get());
        }
    }
    return out;
}

} // namespace

ast::Module Parser::parse() {
    eof_.kind = TokenKind::EndOfFile;
    while (!check(TokenKind::EndOfFile)) {
        failed_ = false;
        const std::size_t start = consumed_;
        const bool compound = top_level_item();
        if (failed_) recover(compound);
        failed_ = false;
        if (consumed_ == start) advance();
    }
    return std::move(module_);
}

bool Parser::top_level_item() {
    const Token &t = peek();
    if (t.kind == TokenKind::Indent) {
        report(t.location, "unexpected indent");
        skip_block();
        return false;
    }
    if (t.kind == TokenKind::Newline || t.kind == TokenKind::Dedent) {
        advance(); // cannot happen with a balanced token stream; consume it anyway
        return false;
    }
    if (t.is_op("@")) return parse_decorated();
    if (t.is_keyword("def")) {
        parse_function({});
        return true;
    }
    if (t.is_keyword("class")) {
        parse_class({});
        return true;
    }
    if (t.is_keyword("if") || t.is_keyword("for") || t.is_keyword("while")) {
        fail(t.location, top_level_message);
        return true;
    }
    if (reject_unsupported_compound()) return true;
    top_level_simple();
    return false;
}

void Parser::top_level_simple() {
    for (;;) {
        if (check_kw("import")) {
            parse_import();
        } else if (check_kw("from")) {
            parse_from_import();
        } else {
            AllowDict options(*this); // wp.set_module_options({...})
            StmtPtr s = simple_statement(BlockKind::Function);
            if (!failed_) add_top_level(std::move(s));
        }
        if (failed_) return;
        if (!more_on_line()) return;
    }
}

void Parser::add_top_level(StmtPtr s) {
    if (!s) return;
    // A bare string (the module docstring, or one between definitions) has no effect.
    if (s->kind == Stmt::Kind::Expr && s->value->kind == Expr::Kind::String) return;

    // wp.set_module_options({...}): the checker reads and validates the options.
    if (s->kind == Stmt::Kind::Expr && s->value->kind == Expr::Kind::Call) {
        const Expr *callee = s->value->children.front().get();
        const std::string &name = callee->text;
        if ((callee->kind == Expr::Kind::Name || callee->kind == Expr::Kind::Attribute) && name == "set_module_options") {
            module_.module_options.push_back(std::move(s->value));
            return;
        }
        // wp.overload(kernel, [types] or {name: type}): instances of a generic kernel.
        if ((callee->kind == Expr::Kind::Name || callee->kind == Expr::Kind::Attribute) && name == "overload") {
            module_.kernel_overloads.push_back(std::move(s->value));
            return;
        }
    }
    auto simple_name = [](const ExprPtr &e) { return e->kind == Expr::Kind::Name && e->text != "None"; };
    // `scale2 = make_scale(2.0)`: an instance of a kernel factory.
    if (s->kind == Stmt::Kind::Assign && s->targets.size() == 1 && simple_name(s->targets.front()) &&
        s->value->kind == Expr::Kind::Call && s->value->children.front()->kind == Expr::Kind::Name) {
        if (const ast::Factory *factory = find_factory(s->value->children.front()->text)) {
            instantiate_factory(*factory, *s->value, s->targets.front()->text);
            return;
        }
    }
    if (s->kind == Stmt::Kind::Assign && std::all_of(s->targets.begin(), s->targets.end(), simple_name)) {
        // `A = B = 1` defines two constants; each gets its own copy of the value.
        for (std::size_t i = 0; i < s->targets.size(); ++i) {
            ast::TopLevelAssign a;
            a.name = s->targets[i]->text;
            a.location = s->targets[i]->location;
            a.value = i + 1 < s->targets.size() ? clone_tree(*s->value) : std::move(s->value);
            module_.order.emplace_back('a', module_.assignments.size());
            module_.assignments.push_back(std::move(a));
        }
        return;
    }
    if (s->kind == Stmt::Kind::AnnAssign && simple_name(s->targets.front()) && s->value) {
        ast::TopLevelAssign a;
        a.name = s->targets.front()->text;
        a.location = s->targets.front()->location;
        a.annotation = std::move(s->annotation);
        a.value = std::move(s->value);
        module_.order.emplace_back('a', module_.assignments.size());
        module_.assignments.push_back(std::move(a));
        return;
    }
    report(s->location, top_level_message);
}

std::string Parser::dotted_name() {
    std::string name = advance().text;
    while (check_op(".")) {
        advance();
        if (!check(TokenKind::Name)) {
            unexpected("a name after '.'");
            return {};
        }
        name += '.';
        name += advance().text;
    }
    return name;
}

void Parser::parse_import() {
    advance(); // 'import'
    for (;;) {
        if (!check(TokenKind::Name)) return unexpected("a module name after 'import'");
        ast::Import imp;
        imp.location = peek().location;
        imp.module = dotted_name();
        if (failed_) return;
        imp.alias = imp.module;
        if (check_kw("as")) {
            advance();
            if (!check(TokenKind::Name)) return unexpected("a name after 'as'");
            imp.alias = advance().text;
        }
        module_.order.emplace_back('i', module_.imports.size());
        module_.imports.push_back(std::move(imp));
        if (!check_op(",")) return;
        advance();
    }
}

void Parser::parse_from_import() {
    advance(); // 'from'
    if (check_op(".") || check_op("...")) return fail(peek().location, "relative imports are not supported in kernels");
    if (!check(TokenKind::Name)) return unexpected("a module name after 'from'");
    ast::Import imp;
    imp.location = peek().location;
    imp.module = dotted_name();
    if (failed_) return;
    imp.alias = imp.module;
    if (!check_kw("import")) return unexpected("'import' after the module name");
    advance();
    if (check_op("*"))
        return fail(peek().location, "wildcard imports (from ... import *) are not supported in kernels");
    const bool parenthesized = check_op("(");
    if (parenthesized) advance();
    for (;;) {
        if (!check(TokenKind::Name)) return unexpected("a name to import");
        std::string name = advance().text;
        std::string alias = name;
        if (check_kw("as")) {
            advance();
            if (!check(TokenKind::Name)) return unexpected("a name after 'as'");
            alias = advance().text;
        }
        imp.names.emplace_back(std::move(name), std::move(alias));
        if (!check_op(",")) break;
        advance();
        if (parenthesized && check_op(")")) break;
        if (!parenthesized && at_statement_end())
            return fail(peek().location, "trailing comma not allowed without surrounding parentheses");
    }
    if (parenthesized && !expect_op(")", "',' or ')' in the import list")) return;
    module_.order.emplace_back('i', module_.imports.size());
    module_.imports.push_back(std::move(imp));
}

bool Parser::parse_decorated() {
    std::vector<ast::Decorator> decorators;
    while (check_op("@")) {
        const SourceLocation at = advance().location;
        Node e;
        {
            AllowDict options(*this); // module_options={...}
            e = parse_expression();
        }
        if (e && !check(TokenKind::Newline)) unexpected("NEWLINE after the decorator");
        ast::Decorator d;
        if (e && !failed_ && !make_decorator(std::move(e.expr), at, d))
            fail(at, "a decorator must be a dotted name, optionally called with arguments");
        if (failed_) {
            // Skip the decorators and what they decorate: a kernel without
            // its decorator would only produce confusing errors of its own.
            skip_line();
            while (check_op("@")) skip_line();
            const bool definition = check_kw("def") || check_kw("class");
            if (!definition) failed_ = false;
            return definition;
        }
        advance(); // NEWLINE
        decorators.push_back(std::move(d));
    }
    if (check_kw("def")) {
        parse_function(std::move(decorators));
        return true;
    }
    if (check_kw("class")) {
        parse_class(std::move(decorators));
        return true;
    }
    unexpected("'def' or 'class' after the decorators");
    return false;
}

bool Parser::make_decorator(ExprPtr e, SourceLocation at, ast::Decorator &d) {
    d.location = at;
    if (e->kind == Expr::Kind::Call) {
        d.called = true;
        d.keywords = std::move(e->keywords);
        for (std::size_t i = 1; i < e->children.size(); ++i) d.args.push_back(std::move(e->children[i]));
        ExprPtr callee = std::move(e->children.front());
        e = std::move(callee);
    }
    std::vector<const std::string *> parts;
    const Expr *cur = e.get();
    for (; cur->kind == Expr::Kind::Attribute; cur = cur->children.front().get()) parts.push_back(&cur->text);
    if (cur->kind != Expr::Kind::Name) return false;
    parts.push_back(&cur->text);
    d.name = *parts.front();
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (!d.qualified.empty()) d.qualified += '.';
        d.qualified += **it;
    }
    return true;
}

void Parser::parse_function(std::vector<ast::Decorator> decorators) {
    const Token kw = advance();
    bool_operands_ = 0;
    ast::FunctionDef f;
    f.location = kw.location;
    f.decorators = std::move(decorators);
    if (!check(TokenKind::Name)) return unexpected("a function name after 'def'");
    f.name = advance().text;
    if (!expect_op("(", "'(' after the function name")) return;
    parse_params(f.params);
    if (failed_) return;
    if (check_op("->")) {
        advance();
        Node returns = parse_expression();
        if (!returns) return;
        f.returns = std::move(returns.expr);
    }
    if (!expect_op(":", "':' after the function signature")) return;
    // A @wp.overload stub's body is `...` (or pass, or a docstring).
    const bool stub = std::any_of(f.decorators.begin(), f.decorators.end(),
                                  [](const ast::Decorator &d) { return d.name == "overload" || d.name == "func_native"; });
    const bool saved_ellipsis = allow_ellipsis_;
    allow_ellipsis_ = stub;
    // An undecorated top-level def that defines functions is a kernel factory:
    // its body is parsed as one from the first definition on.
    bool factory = false;
    const bool may_be_factory = f.decorators.empty() && !function_sink_;
    f.body = parse_block("function definition", kw.location.line, BlockKind::Function, may_be_factory ? &factory : nullptr);
    allow_ellipsis_ = saved_ellipsis;
    if (factory) return parse_factory(std::move(f));
    if (failed_) return;
    if (function_sink_) return function_sink_->push_back(std::move(f));
    module_.order.emplace_back('f', module_.functions.size());
    module_.functions.push_back(std::move(f));
}

void Parser::parse_params(std::vector<ast::Param> &params) {
    while (!check_op(")")) {
        const Token t = peek();
        if (t.is_op("*") || t.is_op("**") || t.is_op("/")) {
            // Reported without giving up on the function: its body may hold
            // errors of its own worth reporting.
            advance();
            std::string what;
            if (t.text == "/") {
                what = "positional-only marker '/'";
            } else if (check(TokenKind::Name)) {
                what = t.text + advance().text;
                if (check_op(":")) {
                    advance();
                    if (!parse_expression()) return;
                }
            } else {
                what = "keyword-only marker '*'";
            }
            report(t.location, "variadic parameters are not supported in kernels: " + what);
        } else if (t.kind == TokenKind::Name) {
            ast::Param p;
            p.name = advance().text;
            p.location = t.location;
            for (const ast::Param &other : params)
                if (other.name == p.name)
                    report(t.location, "duplicate parameter '" + p.name + "' in function definition");
            if (check_op(":")) {
                advance();
                Node annotation = parse_expression();
                if (!annotation) return;
                p.annotation = std::move(annotation.expr);
            }
            if (check_op("=")) {
                advance();
                Node value = parse_expression();
                if (!value) return;
                p.default_value = std::move(value.expr);
            }
            params.push_back(std::move(p));
        } else {
            return unexpected("a parameter name");
        }
        if (check_op(",")) {
            advance();
        } else if (!check_op(")")) {
            return unexpected("',' or ')' in the parameter list");
        }
    }
    advance(); // ')'
}

void Parser::parse_class(std::vector<ast::Decorator> decorators) {
    const Token kw = advance();
    ast::ClassDef c;
    c.location = kw.location;
    c.decorators = std::move(decorators);
    if (!check(TokenKind::Name)) return unexpected("a class name after 'class'");
    c.name = advance().text;
    if (check_op("(")) {
        advance();
        while (!check_op(")")) {
            if (check(TokenKind::Name) && peek(1).is_op("="))
                return fail(peek().location, "class keyword arguments are not supported in kernels");
            Node base = parse_expression();
            if (!base) return;
            c.bases.push_back(std::move(base.expr));
            if (check_op(",")) {
                advance();
            } else if (!check_op(")")) {
                return unexpected("',' or ')' in the base class list");
            }
        }
        advance();
    }
    if (!expect_op(":", "':' after the class header")) return;
    c.body = parse_block("class definition", kw.location.line, BlockKind::Class);
    if (failed_) return;
    module_.order.emplace_back('c', module_.classes.size());
    module_.classes.push_back(std::move(c));
}

} // namespace detail

ast::Module parse_module(const SourceFile &file, DiagnosticEngine &diags) {
    detail::Parser parser(file, diags);
    return parser.parse();
}

} // namespace weft::kernel

namespace weft::kernel::ast {
ExprPtr clone(const Expr &e) { return detail::clone_tree(e); }

StmtPtr clone(const Stmt &s) {
    auto c = std::make_unique<Stmt>(s.kind, s.location);
    c->text = s.text;
    for (const ExprPtr &t : s.targets) c->targets.push_back(clone(*t));
    if (s.value) c->value = clone(*s.value);
    if (s.annotation) c->annotation = clone(*s.annotation);
    if (s.test) c->test = clone(*s.test);
    if (s.iter) c->iter = clone(*s.iter);
    // Recursion is bounded by the parser's block depth and elif limits.
    for (const StmtPtr &b : s.body) c->body.push_back(clone(*b));
    for (const StmtPtr &b : s.orelse) c->orelse.push_back(clone(*b));
    return c;
}

FunctionDef clone(const FunctionDef &f) {
    FunctionDef c;
    c.name = f.name;
    c.location = f.location;
    c.factory_call = f.factory_call;
    c.factory_call_location = f.factory_call_location;
    c.bundled_from = f.bundled_from;
    for (const Decorator &d : f.decorators) {
        Decorator copy{d.name, d.qualified, d.called, {}, {}, d.location};
        for (const Keyword &k : d.keywords) copy.keywords.push_back(Keyword{k.name, clone(*k.value), k.location});
        for (const ExprPtr &a : d.args) copy.args.push_back(clone(*a));
        c.decorators.push_back(std::move(copy));
    }
    for (const Param &p : f.params)
        c.params.push_back(Param{p.name, p.annotation ? clone(*p.annotation) : nullptr,
                                 p.default_value ? clone(*p.default_value) : nullptr, p.location});
    if (f.returns) c.returns = clone(*f.returns);
    for (const StmtPtr &s : f.body) c.body.push_back(clone(*s));
    return c;
}
} // namespace weft::kernel::ast
