// The parser's token stream (look-ahead over the lexer, which stops at the
// error limit), its error reporting and its recovery at the next statement.
#include "parser_internal.hpp"

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>

namespace weft::kernel::detail {

bool is_augmented_assign(const Token &t) {
    static constexpr std::string_view ops[] = {"+=", "-=", "*=", "/=", "//=", "%=", "**=",
                                               "&=", "|=", "^=", "<<=", ">>=", "@="};
    return t.kind == TokenKind::Op && std::find(std::begin(ops), std::end(ops), t.text) != std::end(ops);
}

bool is_clause_keyword(const Token &t) {
    return t.is_keyword("elif") || t.is_keyword("else") || t.is_keyword("except") || t.is_keyword("finally");
}

const Token &Parser::peek(std::size_t k) {
    // Once the error limit is reached, the rest of the input reads as the end
    // of the file: every loop ends there, and nothing more is lexed.
    if (diags_.at_limit()) return eof_;
    // Nearly every call asks for the next token, already lexed: answered
    // without the deque's index arithmetic (a tenth of parsing, bench/frontend).
    if (k == 0 && !ahead_.empty()) return ahead_.front();
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

} // namespace weft::kernel::detail
