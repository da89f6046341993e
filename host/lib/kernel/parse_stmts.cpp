// Statements inside functions and classes: simple statements and
// assignment targets, blocks, if/elif/else, while and for, with the
// unsupported compound statements named.
#include "parser_internal.hpp"

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft::kernel::detail {

using ast::Expr;
using ast::ExprPtr;
using ast::Stmt;
using ast::StmtPtr;

namespace {

constexpr const char *class_body_message =
    "class bodies may only contain fields (name: type), constants (NAME = value), docstrings and pass";

const char *describe_target(const Expr &e) {
    switch (e.kind) {
    case Expr::Kind::Call: return "a function call";
    case Expr::Kind::Int:
    case Expr::Kind::Float:
    case Expr::Kind::String:
    case Expr::Kind::Bool: return "a literal";
    case Expr::Kind::Compare: return "a comparison";
    case Expr::Kind::IfExp: return "a conditional expression";
    default: return "an expression";
    }
}

} // namespace

void Parser::statement(std::vector<StmtPtr> &out, BlockKind kind) {
    failed_ = false;
    const std::size_t start = consumed_;
    const Token &t = peek();
    bool compound = false;
    if (t.kind == TokenKind::Indent) {
        report(t.location, "unexpected indent");
        skip_block();
    } else if (starts_compound(t)) {
        compound = true;
        compound_statement(out, kind);
    } else {
        simple_statements(out, kind);
    }
    if (failed_) recover(compound);
    failed_ = false;
    // Every statement consumes input, or a loop over statements could spin.
    if (consumed_ == start && !check(TokenKind::Dedent)) advance();
}

bool Parser::starts_compound(const Token &t) {
    if (t.is_op("@")) return true;
    if (t.kind == TokenKind::Keyword) {
        static constexpr std::string_view compound[] = {"if",    "while", "for",  "try",  "with",   "async",
                                                        "def",   "class", "elif", "else", "except", "finally"};
        return std::find(std::begin(compound), std::end(compound), t.text) != std::end(compound);
    }
    return at_match_statement();
}

bool Parser::reject_unsupported_compound() {
    const Token &t = peek();
    if (t.is_keyword("try")) {
        fail(t.location, "try statements are not supported in kernels");
    } else if (t.is_keyword("with")) {
        fail(t.location, "with statements are not supported in kernels");
    } else if (t.is_keyword("async")) {
        const Token &next = peek(1);
        if (next.is_keyword("def"))
            fail(t.location, "async functions are not supported in kernels");
        else if (next.is_keyword("for"))
            fail(t.location, "async for loops are not supported in kernels");
        else if (next.is_keyword("with"))
            fail(t.location, "async with statements are not supported in kernels");
        else
            fail(next.location, "expected 'def', 'for' or 'with' after 'async', found " + detail::describe(next));
    } else if (is_clause_keyword(t)) {
        fail(t.location, "expected a statement, found " + detail::describe(t));
    } else if (t.kind == TokenKind::Name && at_match_statement()) {
        fail(t.location, "match statements are not supported in kernels");
    } else {
        return false;
    }
    return true;
}

void Parser::compound_statement(std::vector<StmtPtr> &out, BlockKind kind) {
    const Token &t = peek();
    if (t.is_op("@")) return reject_decorated(kind);
    if (t.is_keyword("def"))
        return fail(t.location, kind == BlockKind::Class ? "methods are not supported in kernel classes"
                                                         : "nested function definitions are not supported in kernels");
    if (t.is_keyword("class")) return fail(t.location, "nested class definitions are not supported in kernels");
    if (kind == BlockKind::Class && !is_clause_keyword(t)) return fail(t.location, class_body_message);
    if (reject_unsupported_compound()) return;

    StmtPtr s;
    if (t.is_keyword("if"))
        s = parse_if();
    else if (t.is_keyword("while"))
        s = parse_while();
    else if (t.is_keyword("for"))
        s = parse_for();
    if (s && !failed_) out.push_back(std::move(s));
}

void Parser::reject_decorated(BlockKind kind) {
    const SourceLocation at = peek().location;
    std::size_t k = 0;
    while (peek(k).is_op("@")) {
        while (peek(k).kind != TokenKind::Newline && peek(k).kind != TokenKind::EndOfFile) ++k;
        if (peek(k).kind == TokenKind::Newline) ++k;
    }
    const Token &target = peek(k);
    if (target.is_keyword("def"))
        fail(at, kind == BlockKind::Class ? "methods are not supported in kernel classes"
                                          : "nested function definitions are not supported in kernels");
    else if (target.is_keyword("class"))
        fail(at, "nested class definitions are not supported in kernels");
    else
        fail(target.location, "expected 'def' or 'class' after the decorators, found " + detail::describe(target));
    const bool definition = target.is_keyword("def") || target.is_keyword("class");
    // Skip the decorator lines so that the recovery skips what they decorate.
    while (check_op("@")) skip_line();
    if (!definition) failed_ = false;
}

bool Parser::more_on_line() {
    if (check_op(";")) {
        advance();
        if (check(TokenKind::Newline)) {
            advance();
            return false;
        }
        return !check(TokenKind::EndOfFile);
    }
    if (check(TokenKind::Newline)) {
        advance();
        return false;
    }
    if (!check(TokenKind::EndOfFile)) unexpected("the end of the statement");
    return false;
}

void Parser::simple_statements(std::vector<StmtPtr> &out, BlockKind kind) {
    for (;;) {
        StmtPtr s = simple_statement(kind);
        if (failed_) return;
        if (s) out.push_back(std::move(s));
        if (!more_on_line()) return;
    }
}

StmtPtr Parser::simple_statement(BlockKind kind) {
    const Token &t = peek();
    StmtPtr s;
    if (t.kind == TokenKind::Keyword) {
        if (t.text == "pass" || t.text == "break" || t.text == "continue") {
            const Stmt::Kind k = t.text == "pass"    ? Stmt::Kind::Pass
                                 : t.text == "break" ? Stmt::Kind::Break
                                                     : Stmt::Kind::Continue;
            s = std::make_unique<Stmt>(k, advance().location);
        } else if (t.text == "return") {
            s = std::make_unique<Stmt>(Stmt::Kind::Return, advance().location);
            if (!at_statement_end()) {
                Node value = parse_star_expressions();
                if (!value) return nullptr;
                s->value = std::move(value.expr);
            }
        } else if (t.text == "assert") {
            // assert test[, message]: a call of the `assert` intrinsic, checked in debug builds only.
            const SourceLocation at = advance().location;
            Node test = parse_expression();
            if (!test) return nullptr;
            Node call = leaf(Expr::Kind::Call, at);
            Node callee = leaf(Expr::Kind::Name, at);
            callee.expr->text = "assert";
            if (!add(call, std::move(callee)) || !add(call, std::move(test))) return nullptr;
            if (check_op(",")) {
                advance();
                Node message = parse_expression();
                if (!message || !add(call, std::move(message))) return nullptr;
            }
            s = std::make_unique<Stmt>(Stmt::Kind::Expr, at);
            s->value = std::move(call.expr);
        } else if (t.text == "raise" || t.text == "del" || t.text == "global" || t.text == "nonlocal") {
            fail(t.location, t.text + " statements are not supported in kernels");
            return nullptr;
        } else if (t.text == "import" || t.text == "from") {
            fail(t.location, "import statements are only supported at the top level of a module");
            return nullptr;
        }
    }
    if (!s) s = expression_statement();
    if (!s || kind != BlockKind::Class) return s;

    const bool field = s->kind == Stmt::Kind::AnnAssign && s->targets.front()->kind == Expr::Kind::Name;
    // Enum members and constant holders (the checker refuses them in @wp.struct bodies).
    const bool constant = s->kind == Stmt::Kind::Assign && s->targets.size() == 1 &&
                          s->targets.front()->kind == Expr::Kind::Name;
    const bool docstring = s->kind == Stmt::Kind::Expr && s->value->kind == Expr::Kind::String;
    if (field || constant || docstring || s->kind == Stmt::Kind::Pass) return s;
    report(s->location, class_body_message);
    return nullptr;
}

StmtPtr Parser::expression_statement() {
    Node first = parse_star_expressions();
    if (!first) return nullptr;
    const SourceLocation at = first.expr->location;
    const Token &t = peek();

    if (t.is_op(":")) {
        if (!check_target(first, TargetUse::Annotation)) return nullptr;
        advance();
        Node annotation = parse_expression();
        if (!annotation) return nullptr;
        auto s = std::make_unique<Stmt>(Stmt::Kind::AnnAssign, at);
        s->targets.push_back(std::move(first.expr));
        s->annotation = std::move(annotation.expr);
        if (check_op("=")) {
            advance();
            Node value = parse_star_expressions();
            if (!value) return nullptr;
            s->value = std::move(value.expr);
        }
        return s;
    }

    if (is_augmented_assign(t)) {
        if (!check_target(first, TargetUse::Augmented)) return nullptr;
        std::string op = advance().text;
        op.pop_back(); // "+=" -> "+"
        Node value = parse_star_expressions();
        if (!value) return nullptr;
        auto s = std::make_unique<Stmt>(Stmt::Kind::AugAssign, at);
        s->text = std::move(op);
        s->targets.push_back(std::move(first.expr));
        s->value = std::move(value.expr);
        return s;
    }

    if (t.is_op("=")) {
        std::vector<Node> items;
        items.push_back(std::move(first));
        while (check_op("=")) {
            advance();
            Node value = parse_star_expressions();
            if (!value) return nullptr;
            items.push_back(std::move(value));
        }
        auto s = std::make_unique<Stmt>(Stmt::Kind::Assign, at);
        for (std::size_t i = 0; i + 1 < items.size(); ++i) {
            if (!check_target(items[i], TargetUse::Assign)) return nullptr;
            s->targets.push_back(std::move(items[i].expr));
        }
        s->value = std::move(items.back().expr);
        return s;
    }

    auto s = std::make_unique<Stmt>(Stmt::Kind::Expr, at);
    s->value = std::move(first.expr);
    return s;
}

bool Parser::check_target(const Node &target, TargetUse use) {
    // Tuples nest: (a, b), c = ...; walk them without recursion.
    std::vector<const Expr *> work{target.expr.get()};
    while (!work.empty()) {
        const Expr &e = *work.back();
        work.pop_back();
        if (e.kind == Expr::Kind::Name && e.text != "None") continue;
        if (e.kind == Expr::Kind::Attribute || e.kind == Expr::Kind::Subscript) continue;
        if (e.kind == Expr::Kind::Tuple && use == TargetUse::Assign) {
            for (const ExprPtr &child : e.children) work.push_back(child.get());
            continue;
        }
        if (use == TargetUse::Annotation)
            fail(e.location, e.kind == Expr::Kind::Tuple ? "only a single target (not a tuple) can be annotated"
                                                         : "illegal target for annotation");
        else if (use == TargetUse::Augmented)
            fail(e.location, "illegal expression for augmented assignment");
        else if (e.kind == Expr::Kind::Name)
            fail(e.location, "cannot assign to None");
        else
            fail(e.location, std::string("cannot assign to ") + describe_target(e));
        return false;
    }
    return true;
}

std::vector<StmtPtr> Parser::parse_block(const std::string &what, std::uint32_t line, BlockKind kind,
                                         bool *stopped_at_definition) {
    std::vector<StmtPtr> body;
    if (!check(TokenKind::Newline)) {
        // `if x: return` -- simple statements on the header's line.
        const Token &t = peek();
        if (starts_compound(t)) {
            fail(t.location, "a compound statement cannot follow ':' on the same line");
            return body;
        }
        simple_statements(body, kind);
        return body;
    }
    advance();
    if (!check(TokenKind::Indent)) {
        report(peek().location, "expected an indented block after " + what + " on line " + std::to_string(line));
        return body;
    }
    DepthGuard guard(block_depth_, max_block_depth);
    DepthGuard path(stmt_path_, max_tree_height);
    if (!guard.ok() || !path.ok()) {
        fail(peek().location, "statements nested too deeply");
        return body;
    }
    advance(); // INDENT
    while (!check(TokenKind::Dedent) && !check(TokenKind::EndOfFile)) {
        if (stopped_at_definition && (check_op("@") || check_kw("def"))) {
            *stopped_at_definition = true; // the block stays open: the caller parses the rest
            return body;
        }
        statement(body, kind);
    }
    if (check(TokenKind::Dedent)) advance();
    return body;
}

StmtPtr Parser::parse_if() {
    const Token kw = advance();
    auto s = std::make_unique<Stmt>(Stmt::Kind::If, kw.location);
    Node test = parse_expression();
    if (!test || !expect_op(":", "':' after the if condition")) return nullptr;
    s->test = std::move(test.expr);
    s->body = parse_block("'if' statement", kw.location.line, BlockKind::Function);
    if (failed_) return nullptr;

    // elif chains are built by a loop (they can be long), and each link is
    // one more level of tree height.
    Stmt *tail = s.get();
    std::uint32_t links = 0;
    while (!failed_ && check_kw("elif")) {
        const Token elif = advance();
        ++links;
        if (++stmt_path_ >= max_tree_height) {
            fail(elif.location, "too many elif branches: the statement tree may be " + std::to_string(max_tree_height) +
                                    " levels deep, and each elif is one");
            break;
        }
        auto branch = std::make_unique<Stmt>(Stmt::Kind::If, elif.location);
        Node branch_test = parse_expression();
        if (!branch_test || !expect_op(":", "':' after the elif condition")) break;
        branch->test = std::move(branch_test.expr);
        branch->body = parse_block("'elif' statement", elif.location.line, BlockKind::Function);
        Stmt *next = branch.get();
        tail->orelse.push_back(std::move(branch));
        tail = next;
    }
    if (!failed_ && check_kw("else")) {
        const Token e = advance();
        if (expect_op(":", "':' after 'else'"))
            tail->orelse = parse_block("'else' statement", e.location.line, BlockKind::Function);
    }
    stmt_path_ -= links;
    if (failed_) return nullptr;
    return s;
}

StmtPtr Parser::parse_while() {
    const Token kw = advance();
    auto s = std::make_unique<Stmt>(Stmt::Kind::While, kw.location);
    Node test = parse_expression();
    if (!test || !expect_op(":", "':' after the while condition")) return nullptr;
    s->test = std::move(test.expr);
    s->body = parse_block("'while' statement", kw.location.line, BlockKind::Function);
    if (failed_) return nullptr;
    reject_loop_else("while");
    return s;
}

StmtPtr Parser::parse_for() {
    const Token kw = advance();
    auto s = std::make_unique<Stmt>(Stmt::Kind::For, kw.location);
    Node target = parse_target_list();
    if (!target) return nullptr;
    if (target.expr->kind == Expr::Kind::Tuple) {
        fail(target.expr->location,
             "tuple unpacking in for loops is not supported in kernels; the loop variable must be a single name");
        return nullptr;
    }
    if (target.expr->kind != Expr::Kind::Name || target.expr->text == "None") {
        fail(target.expr->location, "the for loop variable must be a single name");
        return nullptr;
    }
    if (!check_kw("in")) {
        unexpected("'in' after the for loop variable");
        return nullptr;
    }
    advance();
    Node iter = parse_star_expressions();
    if (!iter || !expect_op(":", "':' after the for clause")) return nullptr;
    s->targets.push_back(std::move(target.expr));
    s->iter = std::move(iter.expr);
    s->body = parse_block("'for' statement", kw.location.line, BlockKind::Function);
    if (failed_) return nullptr;
    reject_loop_else("for");
    return s;
}

void Parser::reject_loop_else(const char *loop) {
    if (!check_kw("else")) return;
    const Token e = advance();
    report(e.location,
           std::string("else clauses on ") + loop + " loops (" + loop + "-else) are not supported in kernels");
    // Parse the clause anyway, for the errors inside it, and drop it.
    if (expect_op(":", "':' after 'else'")) parse_block("'else' statement", e.location.line, BlockKind::Function);
}

} // namespace weft::kernel::detail
