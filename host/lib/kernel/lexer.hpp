// Tokenizer for kernel source: Python's lexical rules (INDENT/DEDENT from an
// indentation stack, implicit line joining inside brackets, backslash
// continuation) over UTF-8 source whose tokens are ASCII. LF, CRLF and a lone
// CR end lines. Tokens are produced on demand so that
// lexical and syntax errors reach the DiagnosticEngine in source order.
#pragma once

#include "weft/kernel/diagnostics.hpp"
#include "weft/kernel/source.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace weft::kernel::detail {

enum class TokenKind {
    Name,
    Keyword,
    Int,
    Float,
    String,
    Op, // operators and delimiters: text is the spelling
    Newline,
    Indent,
    Dedent,
    EndOfFile,
    // Stands where the lexer already reported an error, so that the parser
    // recovers without a second message about the same spot.
    Error,
};

struct Token {
    TokenKind kind = TokenKind::EndOfFile;
    SourceLocation location;
    // Name, keyword and operator spelling; a number's spelling; a string's
    // decoded value (escapes applied, prefix and quotes removed).
    std::string text;
    std::uint64_t int_value = 0; // 0 to 2^64-1: a literal is never negative
    double float_value = 0.0;
    bool is_bytes = false; // String only: a b'' literal
    // Error only: stands at the end of the input for a bracket that was never
    // closed, which explains any syntax error between the bracket and here.
    bool unclosed_bracket = false;

    bool is(TokenKind k, std::string_view spelling) const { return kind == k && text == spelling; }
    bool is_op(std::string_view spelling) const { return is(TokenKind::Op, spelling); }
    bool is_keyword(std::string_view spelling) const { return is(TokenKind::Keyword, spelling); }
};

/// How a token reads in "expected X, found Y": "'('", "NEWLINE", "end of file".
std::string describe(const Token &t);

bool is_keyword(std::string_view s);

class Lexer {
public:
    Lexer(const SourceFile &file, DiagnosticEngine &diags);

    /// The next token; EndOfFile forever once the input is exhausted.
    Token next();

private:
    struct Bracket {
        char open;
        SourceLocation location;
    };

    bool at_end() const { return pos_ >= text_.size(); }
    char cur() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
    char peek_char(std::size_t k = 1) const { return pos_ + k < text_.size() ? text_[pos_ + k] : '\0'; }
    bool at_newline() const;
    void consume_newline();
    SourceLocation here() const { return location_at(pos_); }
    SourceLocation location_at(std::size_t offset) const;

    void indentation();
    Token end_of_input();
    Token make(TokenKind kind, SourceLocation at, std::string text = {}) const;
    Token error_token(SourceLocation at) const { return make(TokenKind::Error, at); }
    Token name_or_string();
    Token number();
    Token string_literal(std::size_t prefix_start, std::string_view prefix);
    Token op_or_bracket();
    void skip_invalid_character();
    // To the end of the line; bytes that are not UTF-8 are errors even here, as in Python.
    void skip_comment();
    // Digits with single underscores between them; the count read, or -1 at a misplaced underscore.
    int digit_run(bool (*digit)(char), std::string &out, bool leading_underscore);

    std::string_view text_;
    DiagnosticEngine &diags_;
    std::size_t pos_ = 0;
    std::uint32_t line_ = 1;
    std::size_t line_start_ = 0;

    bool at_line_start_ = true;
    bool line_has_tokens_ = false; // a NEWLINE is owed at the end of this logical line
    bool finished_ = false;
    // Indentation columns with tabs to multiples of 8 and with tabs as one
    // column: the two disagree exactly when tabs and spaces are mixed in a way
    // whose meaning depends on the tab width.
    std::vector<std::uint32_t> indents_{0};
    std::vector<std::uint32_t> alt_indents_{0};
    std::vector<Bracket> brackets_;
    std::vector<Token> pending_; // INDENT/DEDENTs (and, at the end, the closing tokens) owed
    std::size_t pending_pos_ = 0;
    // Warnings do not count toward the error limit, so a file full of bad
    // escapes would otherwise keep one diagnostic per escape.
    std::size_t escape_warnings_ = 0;
};

/// Every token of the file, through EndOfFile.
std::vector<Token> tokenize(const SourceFile &file, DiagnosticEngine &diags);

} // namespace weft::kernel::detail
