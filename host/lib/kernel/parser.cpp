#include "weft/kernel/parser.hpp"

#include "kernel/lexer.hpp"

#include <algorithm>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft::kernel {

namespace {

using ast::Expr;
using ast::ExprPtr;
using ast::Stmt;
using ast::StmtPtr;
using detail::Token;
using detail::TokenKind;

// Python's own tokenizer stops at 200 nested brackets and 100 indentation
// levels; the same bounds keep this recursive descent far from the end of any
// thread's stack, sanitizers included.
constexpr std::uint32_t max_expression_depth = 200;
constexpr std::uint32_t max_block_depth = 100;
// Left-associative chains (a + b + ..., a.b.c..., f()()..., elif ...) are
// parsed by loops, yet they still build trees as deep as they are long, and
// every later pass over the tree (and the tree's own destructor) recurses.
constexpr std::uint32_t max_tree_height = 1000;

constexpr const char *too_deep = "expression nested too deeply";
constexpr const char *top_level_message =
    "top-level statements other than imports, constants, functions and classes are not supported";
constexpr const char *class_body_message = "class bodies may only contain annotated fields, docstrings and pass";

/// An expression under construction and the height of its tree.
struct Node {
    ExprPtr expr;
    std::uint32_t height = 0;
    explicit operator bool() const { return expr != nullptr; }
};

enum class BlockKind { Function, Class };
enum class TargetUse { Assign, Annotation, Augmented };

class DepthGuard {
public:
    DepthGuard(std::uint32_t &depth, std::uint32_t limit) : depth_(depth) { ok_ = ++depth_ <= limit; }
    ~DepthGuard() { --depth_; }
    DepthGuard(const DepthGuard &) = delete;
    DepthGuard &operator=(const DepthGuard &) = delete;
    bool ok() const { return ok_; }

private:
    std::uint32_t &depth_;
    bool ok_;
};

int binary_precedence(const Token &t) {
    if (t.kind != TokenKind::Op) return 0;
    const std::string &s = t.text;
    if (s == "|") return 1;
    if (s == "^") return 2;
    if (s == "&") return 3;
    if (s == "<<" || s == ">>") return 4;
    if (s == "+" || s == "-") return 5;
    if (s == "*" || s == "/" || s == "//" || s == "%" || s == "@") return 6;
    return 0;
}

bool is_augmented_assign(const Token &t) {
    static constexpr std::string_view ops[] = {"+=", "-=", "*=", "/=", "//=", "%=", "**=",
                                               "&=", "|=", "^=", "<<=", ">>=", "@="};
    return t.kind == TokenKind::Op && std::find(std::begin(ops), std::end(ops), t.text) != std::end(ops);
}

bool is_clause_keyword(const Token &t) {
    return t.is_keyword("elif") || t.is_keyword("else") || t.is_keyword("except") || t.is_keyword("finally");
}

bool starts_expression(const Token &t) {
    switch (t.kind) {
    case TokenKind::Name:
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::String:
    case TokenKind::Error: return true;
    case TokenKind::Keyword:
        return t.text == "not" || t.text == "lambda" || t.text == "await" || t.text == "yield" || t.text == "True" ||
               t.text == "False" || t.text == "None";
    case TokenKind::Op:
        return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" || t.text == "~" ||
               t.text == "*" || t.text == "...";
    default: return false;
    }
}

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

ExprPtr clone(const Expr &root) {
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

class Parser {
public:
    Parser(const SourceFile &file, DiagnosticEngine &diags) : lexer_(file, diags), diags_(diags) {}

    ast::Module parse();

private:
    // --- tokens -----------------------------------------------------------
    const Token &peek(std::size_t k = 0);
    Token advance();
    bool check(TokenKind kind) { return peek().kind == kind; }
    bool check_op(std::string_view op) { return peek().is_op(op); }
    bool check_kw(std::string_view kw) { return peek().is_keyword(kw); }
    bool at_statement_end() { return check(TokenKind::Newline) || check(TokenKind::EndOfFile) || check_op(";"); }
    bool at_match_statement();

    // --- errors -----------------------------------------------------------
    // Messages are views so that a call site with a literal builds no string:
    // call sites sit on the recursion path, and every temporary there is
    // stack paid at each level of nesting.
    [[gnu::noinline]] void report(SourceLocation at, std::string_view message);
    [[gnu::noinline]] void fail(SourceLocation at, std::string_view message);
    [[gnu::noinline]] void unexpected(std::string_view expected);
    bool expect_op(std::string_view op, std::string_view expected);
    void skip_line();
    void skip_block();
    void recover(bool compound);

    // --- expressions ------------------------------------------------------
    Node leaf(Expr::Kind kind, SourceLocation at) { return Node{std::make_unique<Expr>(kind, at), 1}; }
    bool grow(Node &parent, std::uint32_t child_height);
    bool add(Node &parent, Node child);
    bool add_keyword(Node &call, std::string name, SourceLocation at, Node value);

    Node parse_star_expressions();
    Node parse_expression();
    Node parse_or();
    Node parse_and();
    Node parse_not();
    Node parse_comparison();
    std::string comparison_op();
    Node parse_binary(int min_precedence);
    Node parse_unary();
    Node parse_primary();
    // Kept out of line: each is on the recursion path of one kind of bracket
    // only, and inlined together they would make every level's frame the sum
    // of all of them (sanitizer builds do not share stack slots).
    [[gnu::noinline]] Node parse_call(Node callee);
    [[gnu::noinline]] Node parse_subscript(Node value);
    Node parse_atom();
    [[gnu::noinline]] Node parse_strings();
    [[gnu::noinline]] Node parse_parenthesized();
    [[gnu::noinline]] void reject_bracket_display();
    Node parse_target_list();

    // --- statements -------------------------------------------------------
    void statement(std::vector<StmtPtr> &out, BlockKind kind);
    bool starts_compound(const Token &t);
    void compound_statement(std::vector<StmtPtr> &out, BlockKind kind);
    bool reject_unsupported_compound();
    void reject_decorated(BlockKind kind);
    /// After a simple statement: true when a ';' puts another on the same line.
    bool more_on_line();
    void simple_statements(std::vector<StmtPtr> &out, BlockKind kind);
    StmtPtr simple_statement(BlockKind kind);
    StmtPtr expression_statement();
    bool check_target(const Node &target, TargetUse use);
    std::vector<StmtPtr> parse_block(const std::string &what, std::uint32_t line, BlockKind kind);
    StmtPtr parse_if();
    StmtPtr parse_while();
    StmtPtr parse_for();
    void reject_loop_else(const char *loop);

    // --- top level --------------------------------------------------------
    bool top_level_item();
    void top_level_simple();
    void add_top_level(StmtPtr s);
    void parse_import();
    void parse_from_import();
    std::string dotted_name();
    bool parse_decorated();
    bool make_decorator(ExprPtr e, SourceLocation at, ast::Decorator &d);
    void parse_function(std::vector<ast::Decorator> decorators);
    void parse_params(std::vector<ast::Param> &params);
    void parse_class(std::vector<ast::Decorator> decorators);

    detail::Lexer lexer_;
    DiagnosticEngine &diags_;
    std::deque<Token> ahead_;
    Token eof_; // what peek() shows once the error limit is reached
    std::size_t consumed_ = 0;
    // Set by the first error in a statement; parse functions then return
    // empty results until the statement's caller recovers at the next line.
    bool failed_ = false;
    std::uint32_t expr_depth_ = 0;
    std::uint32_t block_depth_ = 0;
    std::uint32_t stmt_path_ = 0; // blocks and elif links from the top: the statement tree's height so far
    ast::Module module_;
};

// ---------------------------------------------------------------------------
// Tokens and errors

const Token &Parser::peek(std::size_t k) {
    // Once the error limit is reached, the rest of the input reads as the end
    // of the file: every loop ends there, and nothing more is lexed.
    if (diags_.at_limit()) return eof_;
    while (ahead_.size() <= k) {
        if (!ahead_.empty() && ahead_.back().kind == TokenKind::EndOfFile) return ahead_.back();
        ahead_.push_back(lexer_.next());
    }
    return ahead_[k];
}

Token Parser::advance() {
    const Token &t = peek();
    if (t.kind == TokenKind::EndOfFile) return t;
    Token out = std::move(ahead_.front());
    ahead_.pop_front();
    ++consumed_;
    return out;
}

bool Parser::at_match_statement() {
    // `match` is a soft keyword: a statement that starts with it and whose
    // line ends in ':' is a match statement, anything else an expression.
    if (!peek().is(TokenKind::Name, "match")) return false;
    const Token &second = peek(1);
    if (second.kind == TokenKind::Newline || second.is_op("=") || second.is_op(":") || second.is_op(".") ||
        second.is_op(",") || is_augmented_assign(second))
        return false;
    for (std::size_t k = 1;; ++k) {
        const Token &t = peek(k);
        if (t.kind == TokenKind::EndOfFile) return false;
        if (t.kind == TokenKind::Newline) return peek(k - 1).is_op(":");
    }
}

void Parser::report(SourceLocation at, std::string_view message) {
    if (!failed_) diags_.error(at, std::string(message));
}

void Parser::fail(SourceLocation at, std::string_view message) {
    report(at, message);
    failed_ = true;
}

void Parser::unexpected(std::string_view expected) {
    const Token &t = peek();
    if (t.kind == TokenKind::Error) {
        failed_ = true; // the lexer has said what is wrong here
        return;
    }
    if (t.is_op(":=")) return fail(t.location, "assignment expressions (:=) are not supported in kernels");
    // Inside a bracket that is never closed the rest of the file is one
    // logical line, and whatever comes next is "unexpected"; the lexer's
    // "'(' was never closed" is the message that helps, so say nothing more.
    // The recovery skips these tokens anyway, so the look ahead costs nothing.
    if (!failed_) {
        for (std::size_t k = 0;; ++k) {
            const Token &ahead = peek(k);
            if (ahead.unclosed_bracket) {
                failed_ = true;
                return;
            }
            if (ahead.kind == TokenKind::Newline || ahead.kind == TokenKind::EndOfFile ||
                ahead.kind == TokenKind::Indent || ahead.kind == TokenKind::Dedent)
                break;
        }
    }
    const Token &found = peek();
    fail(found.location, "expected " + std::string(expected) + ", found " + detail::describe(found));
}

bool Parser::expect_op(std::string_view op, std::string_view expected) {
    if (check_op(op)) {
        advance();
        return true;
    }
    unexpected(expected);
    return false;
}

void Parser::skip_line() {
    for (;;) {
        const Token &t = peek();
        if (t.kind == TokenKind::Newline) {
            advance();
            break;
        }
        if (t.kind == TokenKind::EndOfFile || t.kind == TokenKind::Indent || t.kind == TokenKind::Dedent) break;
        advance();
    }
    // An indented block under a broken line can only belong to it.
    if (check(TokenKind::Indent)) skip_block();
}

void Parser::skip_block() {
    int depth = 0;
    do {
        const Token &t = peek();
        if (t.kind == TokenKind::EndOfFile) return;
        if (t.kind == TokenKind::Indent) ++depth;
        if (t.kind == TokenKind::Dedent) --depth;
        advance();
    } while (depth > 0);
}

void Parser::recover(bool compound) {
    skip_line();
    // The clauses of a broken if/for/while/try would only repeat its error.
    if (compound)
        while (is_clause_keyword(peek())) skip_line();
}

// ---------------------------------------------------------------------------
// Expressions

bool Parser::grow(Node &parent, std::uint32_t child_height) {
    parent.height = std::max(parent.height, child_height + 1);
    if (parent.height <= max_tree_height) return true;
    fail(parent.expr->location, too_deep);
    return false;
}

bool Parser::add(Node &parent, Node child) {
    const std::uint32_t h = child.height;
    parent.expr->children.push_back(std::move(child.expr));
    return grow(parent, h);
}

bool Parser::add_keyword(Node &call, std::string name, SourceLocation at, Node value) {
    const std::uint32_t h = value.height;
    call.expr->keywords.push_back(ast::Keyword{std::move(name), std::move(value.expr), at});
    return grow(call, h);
}

Node Parser::parse_star_expressions() {
    Node first = parse_expression();
    if (!first || !check_op(",")) return first;
    Node tuple = leaf(Expr::Kind::Tuple, first.expr->location);
    if (!add(tuple, std::move(first))) return {};
    while (check_op(",")) {
        advance();
        if (!starts_expression(peek())) break; // a trailing comma
        Node e = parse_expression();
        if (!e || !add(tuple, std::move(e))) return {};
    }
    return tuple;
}

Node Parser::parse_expression() {
    DepthGuard guard(expr_depth_, max_expression_depth);
    if (!guard.ok()) {
        fail(peek().location, too_deep);
        return {};
    }
    Node body = parse_or();
    if (!body || !check_kw("if")) return body;
    // `a if b else c if d else e` nests to the right; gather the arms with a
    // loop and fold them afterwards rather than recursing once per arm.
    std::vector<std::pair<Node, Node>> arms; // {body, test}
    for (;;) {
        advance(); // 'if'
        Node test = parse_or();
        if (!test) return {};
        if (!check_kw("else")) {
            unexpected("'else' in the conditional expression");
            return {};
        }
        advance();
        arms.emplace_back(std::move(body), std::move(test));
        body = parse_or();
        if (!body) return {};
        if (!check_kw("if")) break;
    }
    Node orelse = std::move(body);
    for (auto arm = arms.rbegin(); arm != arms.rend(); ++arm) {
        Node n = leaf(Expr::Kind::IfExp, arm->first.expr->location);
        if (!add(n, std::move(arm->second)) || !add(n, std::move(arm->first)) || !add(n, std::move(orelse))) return {};
        orelse = std::move(n);
    }
    return orelse;
}

Node Parser::parse_or() {
    Node first = parse_and();
    if (!first || !check_kw("or")) return first;
    Node n = leaf(Expr::Kind::BoolOp, first.expr->location);
    n.expr->text = "or";
    if (!add(n, std::move(first))) return {};
    while (check_kw("or")) {
        advance();
        Node v = parse_and();
        if (!v || !add(n, std::move(v))) return {};
    }
    return n;
}

Node Parser::parse_and() {
    Node first = parse_not();
    if (!first || !check_kw("and")) return first;
    Node n = leaf(Expr::Kind::BoolOp, first.expr->location);
    n.expr->text = "and";
    if (!add(n, std::move(first))) return {};
    while (check_kw("and")) {
        advance();
        Node v = parse_not();
        if (!v || !add(n, std::move(v))) return {};
    }
    return n;
}

Node Parser::parse_not() {
    std::vector<SourceLocation> nots;
    while (check_kw("not")) {
        nots.push_back(advance().location);
        if (nots.size() >= max_tree_height) {
            fail(nots.back(), too_deep);
            return {};
        }
    }
    Node n = parse_comparison();
    for (auto at = nots.rbegin(); n && at != nots.rend(); ++at) {
        Node u = leaf(Expr::Kind::Unary, *at);
        u.expr->text = "not";
        if (!add(u, std::move(n))) return {};
        n = std::move(u);
    }
    return n;
}

std::string Parser::comparison_op() {
    const Token &t = peek();
    if (t.kind == TokenKind::Op &&
        (t.text == "<" || t.text == "<=" || t.text == ">" || t.text == ">=" || t.text == "==" || t.text == "!="))
        return t.text;
    if (t.is_keyword("in")) return "in";
    if (t.is_keyword("not") && peek(1).is_keyword("in")) return "not in";
    if (t.is_keyword("is")) return peek(1).is_keyword("not") ? "is not" : "is";
    return {};
}

Node Parser::parse_comparison() {
    Node first = parse_binary(1);
    if (!first) return {};
    std::string op = comparison_op();
    if (op.empty()) return first;
    Node n = leaf(Expr::Kind::Compare, first.expr->location);
    if (!add(n, std::move(first))) return {};
    for (; !op.empty(); op = comparison_op()) {
        advance();
        if (op == "not in" || op == "is not") advance();
        n.expr->ops.push_back(op);
        Node rhs = parse_binary(1);
        if (!rhs || !add(n, std::move(rhs))) return {};
    }
    return n;
}

Node Parser::parse_binary(int min_precedence) {
    // Precedence climbing: one loop per level actually used, so an operand
    // costs a constant number of frames however many levels there are.
    Node lhs = parse_unary();
    if (!lhs) return {};
    for (;;) {
        const int precedence = binary_precedence(peek());
        if (precedence == 0 || precedence < min_precedence) return lhs;
        std::string op = advance().text;
        Node rhs = parse_binary(precedence + 1);
        if (!rhs) return {};
        Node n = leaf(Expr::Kind::Binary, lhs.expr->location);
        n.expr->text = std::move(op);
        if (!add(n, std::move(lhs)) || !add(n, std::move(rhs))) return {};
        lhs = std::move(n);
    }
}

Node Parser::parse_unary() {
    // factor: ('-'|'+'|'~')* primary ['**' factor]. The exponent is itself a
    // factor (2**-1; a**b**c is a**(b**c)) and -x**2 is -(x**2). Gather the
    // segments between the '**'s with a loop and fold them from the right, so
    // that long chains cost no stack.
    struct Prefix {
        SourceLocation location;
        std::string op;
    };
    struct Segment {
        std::vector<Prefix> prefix;
        Node base;
    };
    std::vector<Segment> segments;
    std::size_t count = 0;
    for (;;) {
        Segment seg;
        while (check_op("-") || check_op("+") || check_op("~")) {
            Token t = advance();
            if (++count >= max_tree_height) {
                fail(t.location, too_deep);
                return {};
            }
            seg.prefix.push_back(Prefix{t.location, std::move(t.text)});
        }
        seg.base = parse_primary();
        if (!seg.base) return {};
        segments.push_back(std::move(seg));
        if (!check_op("**")) break;
        const SourceLocation at = advance().location;
        if (++count >= max_tree_height) {
            fail(at, too_deep);
            return {};
        }
    }
    Node acc;
    for (auto seg = segments.rbegin(); seg != segments.rend(); ++seg) {
        if (acc) {
            Node power = leaf(Expr::Kind::Binary, seg->base.expr->location);
            power.expr->text = "**";
            if (!add(power, std::move(seg->base)) || !add(power, std::move(acc))) return {};
            acc = std::move(power);
        } else {
            acc = std::move(seg->base);
        }
        for (auto p = seg->prefix.rbegin(); p != seg->prefix.rend(); ++p) {
            Node u = leaf(Expr::Kind::Unary, p->location);
            u.expr->text = std::move(p->op);
            if (!add(u, std::move(acc))) return {};
            acc = std::move(u);
        }
    }
    return acc;
}

Node Parser::parse_primary() {
    Node n = parse_atom();
    if (!n) return {};
    for (;;) {
        if (check_op(".")) {
            advance();
            if (!check(TokenKind::Name)) {
                unexpected("an attribute name after '.'");
                return {};
            }
            Node a = leaf(Expr::Kind::Attribute, n.expr->location);
            a.expr->text = advance().text;
            if (!add(a, std::move(n))) return {};
            n = std::move(a);
        } else if (check_op("(")) {
            n = parse_call(std::move(n));
            if (!n) return {};
        } else if (check_op("[")) {
            n = parse_subscript(std::move(n));
            if (!n) return {};
        } else {
            return n;
        }
    }
}

Node Parser::parse_call(Node callee) {
    advance(); // '('
    Node call = leaf(Expr::Kind::Call, callee.expr->location);
    if (!add(call, std::move(callee))) return {};
    while (!check_op(")")) {
        const Token &t = peek();
        if (t.is_op("*")) {
            fail(t.location, "argument unpacking (*args) is not supported in kernels");
            return {};
        }
        if (t.is_op("**")) {
            fail(t.location, "keyword argument unpacking (**kwargs) is not supported in kernels");
            return {};
        }
        if (t.kind == TokenKind::Name && peek(1).is_op("=")) {
            Token name = advance();
            advance(); // '='
            for (const ast::Keyword &k : call.expr->keywords) {
                if (k.name == name.text) {
                    fail(name.location, "keyword argument repeated: " + name.text);
                    return {};
                }
            }
            Node value = parse_expression();
            if (!value || !add_keyword(call, std::move(name.text), name.location, std::move(value))) return {};
        } else {
            if (!call.expr->keywords.empty()) {
                fail(t.location, "positional argument follows keyword argument");
                return {};
            }
            Node arg = parse_expression();
            if (!arg) return {};
            if (check_kw("for") || check_kw("async")) {
                fail(arg.expr->location, "generator expressions are not supported in kernels");
                return {};
            }
            if (!add(call, std::move(arg))) return {};
        }
        if (check_op(",")) {
            advance();
        } else if (!check_op(")")) {
            unexpected("',' or ')' in the argument list");
            return {};
        }
    }
    advance(); // ')'
    return call;
}

Node Parser::parse_subscript(Node value) {
    advance(); // '['
    Node sub = leaf(Expr::Kind::Subscript, value.expr->location);
    if (!add(sub, std::move(value))) return {};
    constexpr const char *slices = "slices are not supported in kernels";
    for (;;) {
        const Token &t = peek();
        if (t.is_op(":")) {
            fail(t.location, slices);
            return {};
        }
        const SourceLocation at = t.location;
        Node index = parse_expression();
        if (!index) return {};
        if (check_op(":")) {
            fail(at, slices);
            return {};
        }
        if (!add(sub, std::move(index))) return {};
        if (check_op(",")) {
            advance();
            if (check_op("]")) break;
            continue;
        }
        if (check_op("]")) break;
        unexpected("',' or ']' in the subscript");
        return {};
    }
    advance(); // ']'
    return sub;
}

Node Parser::parse_atom() {
    const Token &t = peek();
    switch (t.kind) {
    case TokenKind::Name: {
        Node n = leaf(Expr::Kind::Name, t.location);
        n.expr->text = advance().text;
        return n;
    }
    case TokenKind::Int: {
        Node n = leaf(Expr::Kind::Int, t.location);
        n.expr->int_value = t.int_value;
        n.expr->text = advance().text;
        return n;
    }
    case TokenKind::Float: {
        Node n = leaf(Expr::Kind::Float, t.location);
        n.expr->float_value = t.float_value;
        n.expr->text = advance().text;
        return n;
    }
    case TokenKind::String: return parse_strings();
    case TokenKind::Keyword:
        if (t.text == "True" || t.text == "False") {
            Node n = leaf(Expr::Kind::Bool, t.location);
            n.expr->bool_value = t.text == "True";
            n.expr->text = advance().text;
            return n;
        }
        if (t.text == "None") {
            Node n = leaf(Expr::Kind::Name, t.location);
            n.expr->text = advance().text;
            return n;
        }
        if (t.text == "lambda" || t.text == "yield" || t.text == "await") {
            fail(t.location, t.text + " is not supported in kernels");
            return {};
        }
        break;
    case TokenKind::Op:
        if (t.text == "(") return parse_parenthesized();
        if (t.text == "[" || t.text == "{") {
            reject_bracket_display();
            return {};
        }
        if (t.text == "...") {
            fail(t.location, "Ellipsis (...) is not supported in kernels");
            return {};
        }
        if (t.text == "*") {
            fail(t.location, "starred expressions are not supported in kernels");
            return {};
        }
        break;
    default: break;
    }
    unexpected("an expression");
    return {};
}

Node Parser::parse_strings() {
    // Adjacent literals concatenate, as in Python: "a" "b" is "ab".
    Node n = leaf(Expr::Kind::String, peek().location);
    while (check(TokenKind::String)) {
        if (peek().is_bytes) {
            fail(peek().location, "bytes literals are not supported in kernels");
            return {};
        }
        n.expr->text += advance().text;
    }
    return n;
}

Node Parser::parse_parenthesized() {
    const Token open = advance();
    if (check_op(")")) {
        advance();
        return leaf(Expr::Kind::Tuple, open.location);
    }
    Node first = parse_expression();
    if (!first) return {};
    if (check_kw("for") || check_kw("async")) {
        fail(open.location, "generator expressions are not supported in kernels");
        return {};
    }
    if (check_op(")")) {
        advance();
        return first; // a parenthesized expression keeps its own location
    }
    if (!check_op(",")) {
        unexpected("',' or ')'");
        return {};
    }
    Node tuple = leaf(Expr::Kind::Tuple, open.location);
    if (!add(tuple, std::move(first))) return {};
    while (check_op(",")) {
        advance();
        if (check_op(")")) break;
        Node e = parse_expression();
        if (!e || !add(tuple, std::move(e))) return {};
    }
    if (!expect_op(")", "',' or ')'")) return {};
    return tuple;
}

void Parser::reject_bracket_display() {
    // Name the construct by a look at the bracket's tokens alone: its elements
    // need not parse for the writer to learn that lists are out.
    const Token &open = peek();
    const bool brace = open.is_op("{");
    bool comprehension = false;
    bool dict = brace && peek(1).is_op("}");
    int depth = 0;
    for (std::size_t k = 0;; ++k) {
        const Token &t = peek(k);
        if (t.kind == TokenKind::EndOfFile || t.kind == TokenKind::Newline) break;
        if (t.is_op("(") || t.is_op("[") || t.is_op("{")) ++depth;
        if ((t.is_op(")") || t.is_op("]") || t.is_op("}")) && --depth == 0) break;
        if (depth != 1) continue;
        if (t.is_keyword("for")) {
            comprehension = true;
            break;
        }
        if (brace && (t.is_op(":") || t.is_op("**"))) dict = true;
    }
    const char *what = !brace ? (comprehension ? "list comprehensions" : "list literals")
                       : dict ? (comprehension ? "dict comprehensions" : "dict literals")
                              : (comprehension ? "set comprehensions" : "set literals");
    fail(open.location, std::string(what) + " are not supported in kernels");
}

Node Parser::parse_target_list() {
    // Targets stop short of comparisons, so that `in` ends them.
    Node first = parse_binary(1);
    if (!first || !check_op(",")) return first;
    Node tuple = leaf(Expr::Kind::Tuple, first.expr->location);
    if (!add(tuple, std::move(first))) return {};
    while (check_op(",")) {
        advance();
        if (check_kw("in")) break;
        Node e = parse_binary(1);
        if (!e || !add(tuple, std::move(e))) return {};
    }
    return tuple;
}

// ---------------------------------------------------------------------------
// Statements

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
        } else if (t.text == "raise" || t.text == "assert" || t.text == "del" || t.text == "global" ||
                   t.text == "nonlocal") {
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
    const bool docstring = s->kind == Stmt::Kind::Expr && s->value->kind == Expr::Kind::String;
    if (field || docstring || s->kind == Stmt::Kind::Pass) return s;
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

std::vector<StmtPtr> Parser::parse_block(const std::string &what, std::uint32_t line, BlockKind kind) {
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
    while (!check(TokenKind::Dedent) && !check(TokenKind::EndOfFile)) statement(body, kind);
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
            fail(elif.location, "too many elif branches");
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

// ---------------------------------------------------------------------------
// Top level

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

    auto simple_name = [](const ExprPtr &e) { return e->kind == Expr::Kind::Name && e->text != "None"; };
    if (s->kind == Stmt::Kind::Assign && std::all_of(s->targets.begin(), s->targets.end(), simple_name)) {
        // `A = B = 1` defines two constants; each gets its own copy of the value.
        for (std::size_t i = 0; i < s->targets.size(); ++i) {
            ast::TopLevelAssign a;
            a.name = s->targets[i]->text;
            a.location = s->targets[i]->location;
            a.value = i + 1 < s->targets.size() ? clone(*s->value) : std::move(s->value);
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
        Node e = parse_expression();
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
    f.body = parse_block("function definition", kw.location.line, BlockKind::Function);
    if (failed_) return;
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

} // namespace

ast::Module parse_module(const SourceFile &file, DiagnosticEngine &diags) {
    Parser parser(file, diags);
    return parser.parse();
}

} // namespace weft::kernel
