// Expressions: Python's precedence levels down to atoms, calls and
// subscripts, with the unsupported constructs named. Left-associative chains
// are built by loops and every tree's height is bounded (parser_internal.hpp).
#include "parser_internal.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace weft::kernel::detail {

using ast::Expr;

namespace {

// The limits are stated, so that the message says what to change: a sum of
// 1,000 terms is 1,000 levels (issue 18).
const std::string too_deep = "expression nested too deeply: more than " + std::to_string(max_tree_height) +
                             " levels (each operator of a chain such as a + b + c, each unary operator, "
                             "attribute, call or subscript in a row is one)";
const std::string too_deep_brackets =
    "expression nested too deeply: more than " + std::to_string(max_expression_depth) + " levels of brackets";

int binary_precedence(const Token &t) {
    if (t.kind != TokenKind::Op) return 0;
    // A view: its == compares lengths first, std::string's == against a
    // literal calls strlen and memcmp every time (bench/frontend).
    const std::string_view s = t.text;
    if (s == "|") return 1;
    if (s == "^") return 2;
    if (s == "&") return 3;
    if (s == "<<" || s == ">>") return 4;
    if (s == "+" || s == "-") return 5;
    if (s == "*" || s == "/" || s == "//" || s == "%" || s == "@") return 6;
    return 0;
}

bool starts_expression(const Token &t) {
    const std::string_view s = t.text; // see binary_precedence
    switch (t.kind) {
    case TokenKind::Name:
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::String:
    case TokenKind::Error: return true;
    case TokenKind::Keyword:
        return s == "not" || s == "lambda" || s == "await" || s == "yield" || s == "True" || s == "False" ||
               s == "None";
    case TokenKind::Op:
        return s == "(" || s == "[" || s == "{" || s == "-" || s == "+" || s == "~" || s == "*" || s == "...";
    default: return false;
    }
}

} // namespace

bool Parser::grow(Node &parent, std::uint32_t child_height) {
    parent.height = std::max(parent.height, child_height + 1);
    if (parent.height <= max_tree_height) return true;
    fail(parent.expr->location, too_deep);
    return false;
}

bool Parser::count_bool_operand(SourceLocation at) {
    if (++bool_operands_ <= max_bool_operands) return true;
    fail(at, "too many 'and' / 'or' operands and chained comparisons in one function: more than " +
                 std::to_string(max_bool_operands) +
                 " (the C++ optimizer's time and memory grow faster than their number; split the conditions "
                 "across functions)");
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
        fail(peek().location, too_deep_brackets);
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
        if (!count_bool_operand(advance().location)) return {};
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
        if (!count_bool_operand(advance().location)) return {};
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
        // Each link lowers to one more short-circuit condition, as `and` does.
        if (!count_bool_operand(advance().location)) return {};
        if (op == "not in" || op == "is not") advance();
            n.expr->ops.push_back(op);
        if (n.expr->ops.size() >= max_tree_height) {
            // Lowered side by side, but the optimizer's time grows with the square of its length.
            fail(peek().location, "comparison chain too long: more than " + std::to_string(max_tree_height) +
                                      " comparisons in one chain");
            return {};
        }
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
            // f(*v): the checker expands a vector's components into arguments.
            Node starred = leaf(Expr::Kind::Starred, advance().location);
            Node operand = parse_expression();
            if (!operand || !add(starred, std::move(operand)) || !add(call, std::move(starred))) return {};
        } else if (t.is_op("**")) {
            fail(t.location, "keyword argument unpacking (**kwargs) is not supported in kernels");
            return {};
        } else if (t.kind == TokenKind::Name && peek(1).is_op("=")) {
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
    for (;;) {
        const Token &t = peek();
        const SourceLocation at = t.location;
        Node index;
        if (!t.is_op(":")) {
            index = parse_expression();
            if (!index) return {};
        }
        if (check_op(":")) {
            // lower:upper:step, each part optional: a Slice node holds the parts
            // given, its text says which ("1" present, "0" absent, in that order).
            Node slice = leaf(Expr::Kind::Slice, at);
            std::string mask = index ? "1" : "0";
            if (index && !add(slice, std::move(index))) return {};
            for (int part = 0; part < 2 && check_op(":"); ++part) {
                advance(); // ':'
                if (check_op(":") || check_op(",") || check_op("]")) {
                    mask += "0";
                    continue;
                }
                Node bound = parse_expression();
                if (!bound || !add(slice, std::move(bound))) return {};
                mask += "1";
            }
            while (mask.size() < 3) mask += "0";
            slice.expr->text = mask;
            index = std::move(slice);
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
        if (t.text == "{" && allow_dict_) return parse_dict();
        if (t.text == "[" && allow_dict_) return parse_list();
        if (t.text == "[" || t.text == "{") {
            reject_bracket_display();
            return {};
        }
        if (t.text == "..." && allow_ellipsis_) return leaf(Expr::Kind::Ellipsis, advance().location);
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

Node Parser::parse_dict() {
    Node dict = leaf(Expr::Kind::Dict, advance().location); // '{'
    while (!check_op("}")) {
        Node key = parse_expression();
        if (!key) return {};
        if (!expect_op(":", "':' after the key (module options are a dict: {\"name\": value, ...})")) return {};
        Node value = parse_expression();
        if (!value || !add(dict, std::move(key)) || !add(dict, std::move(value))) return {};
        if (check_op(",")) {
            advance();
        } else if (!check_op("}")) {
            unexpected("',' or '}' in the dict");
            return {};
        }
    }
    advance(); // '}'
    return dict;
}

Node Parser::parse_list() {
    Node list = leaf(Expr::Kind::List, advance().location); // '['
    while (!check_op("]")) {
        Node e = parse_expression();
        if (e && check_kw("for")) {
            fail(list.expr->location, "list comprehensions are not supported in kernels");
            return {};
        }
        if (!e || !add(list, std::move(e))) return {};
        if (check_op(",")) {
            advance();
        } else if (!check_op("]")) {
            unexpected("',' or ']' in the list");
            return {};
        }
    }
    advance(); // ']'
    return list;
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

} // namespace weft::kernel::detail
