#include "kernel/lexer.hpp"

#include "weft/support/text.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>

namespace weft::kernel::detail {

namespace {

constexpr std::array<std::string_view, 35> keywords{
    "False", "None",     "True", "and",    "as",     "assert", "async",    "await", "break",
    "class", "continue", "def",  "del",    "elif",   "else",   "except",   "finally", "for",
    "from",  "global",   "if",   "import", "in",     "is",     "lambda",   "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",   "while",  "with",     "yield"};

// Longest first within each group, so the first match is the longest one.
constexpr std::array<std::string_view, 5> ops3{"**=", "//=", ">>=", "<<=", "..."};
constexpr std::array<std::string_view, 19> ops2{"**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->", ":=",
                                                "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="};
constexpr std::string_view ops1 = "+-*/%@&|^~<>()[]{},:.;=";

constexpr std::size_t max_escape_warnings = 20;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_oct_digit(char c) { return c >= '0' && c <= '7'; }
bool is_bin_digit(char c) { return c == '0' || c == '1'; }
bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

int digit_value(char c) {
    if (is_digit(c)) return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return c - 'A' + 10;
}

bool is_string_prefix(std::string_view word) {
    if (word.empty() || word.size() > 2) return false;
    std::string lower;
    for (char c : word) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    static constexpr std::array<std::string_view, 8> prefixes{"r", "u", "b", "f", "br", "rb", "fr", "rf"};
    return std::find(prefixes.begin(), prefixes.end(), lower) != prefixes.end();
}

void append_utf8(std::string &out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

/// Why the bytes at `pos` are not one UTF-8 character, and how many of them
/// belong to the broken sequence (so that one bad character is one error).
std::string invalid_utf8_message(std::string_view text, std::size_t pos, std::size_t &length) {
    static constexpr char digits[] = "0123456789ABCDEF";
    const auto lead = static_cast<unsigned char>(text[pos]);
    const auto at = [&](std::size_t k) { return pos + k < text.size() ? static_cast<unsigned char>(text[pos + k]) : 0; };
    const auto continuation = [&](std::size_t k) { return (at(k) & 0xC0) == 0x80; };
    const std::size_t expected = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    length = 1;
    while (length < expected && continuation(length)) ++length;
    std::string why;
    if (lead >= 0x80 && lead < 0xC0) {
        why = "unexpected continuation byte";
    } else if (lead >= 0xF5) {
        why = "byte that never occurs in UTF-8";
        length = 1;
    } else if (length < expected) {
        why = "truncated sequence";
    } else if (lead == 0xC0 || lead == 0xC1 || (lead == 0xE0 && at(1) < 0xA0) || (lead == 0xF0 && at(1) < 0x90)) {
        why = "overlong encoding";
    } else if (lead == 0xED && at(1) >= 0xA0) {
        why = "encoded surrogate";
    } else {
        why = "code point beyond U+10FFFF";
    }
    std::string bytes;
    for (std::size_t k = 0; k < length; ++k) {
        const auto b = at(k);
        bytes += std::string(k ? " " : "") + digits[b >> 4] + digits[b & 0xF];
    }
    return "invalid UTF-8 (" + why + ": bytes " + bytes + "); kernel source must be UTF-8";
}

/// A character as a message shows it: 'x' when printable, U+XXXX otherwise.
std::string show_char(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7F) return std::string("'") + c + "'";
    static constexpr char digits[] = "0123456789ABCDEF";
    return std::string("U+00") + digits[u >> 4] + digits[u & 0xF];
}

/// The character after a backslash, as a message shows it.
std::string show_escaped(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7F) return std::string(1, c);
    static constexpr char digits[] = "0123456789ABCDEF";
    return std::string("x") + digits[u >> 4] + digits[u & 0xF];
}

} // namespace

bool is_keyword(std::string_view s) { return std::find(keywords.begin(), keywords.end(), s) != keywords.end(); }

std::string describe(const Token &t) {
    switch (t.kind) {
    case TokenKind::Newline: return "NEWLINE";
    case TokenKind::Indent: return "INDENT";
    case TokenKind::Dedent: return "DEDENT";
    case TokenKind::EndOfFile: return "end of file";
    case TokenKind::String: return "a string literal";
    case TokenKind::Error: return "an invalid token";
    case TokenKind::Name:
    case TokenKind::Keyword:
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::Op: return "'" + t.text + "'";
    }
    return "'" + t.text + "'";
}

Lexer::Lexer(const SourceFile &file, DiagnosticEngine &diags) : text_(file.text()), diags_(diags) {}

SourceLocation Lexer::location_at(std::size_t offset) const {
    // Only called for offsets on the current line (tokens never span a
    // newline before their location is taken).
    return SourceLocation{line_, static_cast<std::uint32_t>(offset - line_start_ + 1)};
}

// LF, CRLF and a lone CR each end a line, as in Python (old Mac files use CR).
bool Lexer::at_newline() const { return cur() == '\n' || cur() == '\r'; }

void Lexer::consume_newline() {
    pos_ += cur() == '\r' && peek_char() == '\n' ? 2 : 1;
    ++line_;
    line_start_ = pos_;
}

Token Lexer::make(TokenKind kind, SourceLocation at, std::string text) const {
    Token t;
    t.kind = kind;
    t.location = at;
    t.text = std::move(text);
    return t;
}

Token Lexer::next() {
    if (pending_pos_ < pending_.size()) {
        Token t = std::move(pending_[pending_pos_++]);
        if (pending_pos_ == pending_.size() && !finished_) {
            pending_.clear();
            pending_pos_ = 0;
        }
        return t;
    }
    if (finished_) return make(TokenKind::EndOfFile, here());

    for (;;) {
        if (at_line_start_ && brackets_.empty()) {
            indentation();
            if (!pending_.empty()) return next();
        }
        while (cur() == ' ' || cur() == '\t' || cur() == '\f') ++pos_;
        if (at_end()) return end_of_input();

        const char c = cur();
        if (c == '#') {
            skip_comment();
            continue;
        }
        if (at_newline()) {
            const SourceLocation at = here();
            consume_newline();
            if (!brackets_.empty()) continue; // implicit line joining
            at_line_start_ = true;
            if (!line_has_tokens_) continue;
            line_has_tokens_ = false;
            return make(TokenKind::Newline, at);
        }
        if (c == '\\') {
            const SourceLocation at = here();
            ++pos_;
            if (at_newline()) {
                consume_newline();
                continue;
            }
            line_has_tokens_ = true;
            if (at_end()) {
                diags_.error(at, "unexpected end of file after line continuation character");
                return error_token(at);
            }
            diags_.error(at, "unexpected character after line continuation character");
            return error_token(at);
        }

        line_has_tokens_ = true;
        if (is_ident_start(c)) return name_or_string();
        if (is_digit(c) || (c == '.' && is_digit(peek_char()))) return number();
        if (c == '\'' || c == '"') return string_literal(pos_, {});
        if (ops1.find(c) != std::string_view::npos || (c == '!' && peek_char() == '=')) return op_or_bracket();
        const SourceLocation at = here();
        skip_invalid_character();
        return error_token(at);
    }
}

void Lexer::indentation() {
    std::uint32_t col = 0;
    std::uint32_t alt = 0;
    for (;;) {
        col = 0;
        alt = 0;
        for (;; ++pos_) {
            if (cur() == ' ') {
                ++col;
                ++alt;
            } else if (cur() == '\t') {
                col = (col / 8 + 1) * 8;
                ++alt;
            } else if (cur() == '\f') {
                col = 0;
                alt = 0;
            } else {
                break;
            }
        }
        if (at_end()) return; // end_of_input closes the open blocks
        if (cur() == '#') skip_comment();
        if (at_newline()) {
            consume_newline(); // blank or comment-only line: no tokens at all
            continue;
        }
        break;
    }
    at_line_start_ = false;

    const SourceLocation at = here();
    const char *inconsistent = "inconsistent use of tabs and spaces in indentation";
    if (col == indents_.back()) {
        if (alt != alt_indents_.back()) diags_.error(at, inconsistent);
        return;
    }
    if (col > indents_.back()) {
        if (alt <= alt_indents_.back()) diags_.error(at, inconsistent);
        indents_.push_back(col);
        alt_indents_.push_back(alt);
        pending_.push_back(make(TokenKind::Indent, at));
        return;
    }
    while (indents_.size() > 1 && col < indents_.back()) {
        indents_.pop_back();
        alt_indents_.pop_back();
        pending_.push_back(make(TokenKind::Dedent, at));
    }
    // On a mismatch the line continues at the enclosing level it dedented to,
    // which keeps INDENT/DEDENT balanced for the parser.
    if (col != indents_.back())
        diags_.error(at, "unindent does not match any outer indentation level");
    else if (alt != alt_indents_.back())
        diags_.error(at, inconsistent);
}

Token Lexer::end_of_input() {
    const SourceLocation at = here();
    finished_ = true;
    pending_.clear();
    pending_pos_ = 0;
    if (!brackets_.empty()) {
        const Bracket &b = brackets_.back();
        diags_.error(b.location, std::string("'") + b.open + "' was never closed");
        brackets_.clear();
        pending_.push_back(error_token(at));
        pending_.back().unclosed_bracket = true;
    }
    if (line_has_tokens_) pending_.push_back(make(TokenKind::Newline, at));
    line_has_tokens_ = false;
    for (std::size_t i = 1; i < indents_.size(); ++i) pending_.push_back(make(TokenKind::Dedent, at));
    indents_.resize(1);
    alt_indents_.resize(1);
    pending_.push_back(make(TokenKind::EndOfFile, at));
    return next();
}

Token Lexer::name_or_string() {
    const std::size_t start = pos_;
    while (is_ident_char(cur())) ++pos_;
    const std::string_view word = text_.substr(start, pos_ - start);
    if ((cur() == '\'' || cur() == '"') && is_string_prefix(word)) return string_literal(start, word);
    return make(is_keyword(word) ? TokenKind::Keyword : TokenKind::Name, location_at(start), std::string(word));
}

int Lexer::digit_run(bool (*digit)(char), std::string &out, bool leading_underscore) {
    int n = 0;
    for (;;) {
        if (cur() == '_' && (n > 0 || leading_underscore)) {
            if (!digit(peek_char())) return -1;
            ++pos_;
        }
        if (!digit(cur())) return n;
        out += cur();
        ++pos_;
        ++n;
    }
}

Token Lexer::number() {
    const std::size_t start = pos_;
    const SourceLocation at = here();
    bool bad = false;
    auto fail = [&](SourceLocation where, std::string message) {
        if (!bad) diags_.error(where, std::move(message));
        bad = true;
    };
    // Letters or digits glued to a number: report once, then skip them so
    // that `0x1g2` is one error rather than a cascade.
    auto skip_glued = [&](const std::string &message) {
        if (!is_ident_char(cur())) return;
        fail(at, message);
        while (is_ident_char(cur())) ++pos_;
    };

    const char base_char = cur() == '0' ? peek_char() : '\0';
    int base = 10;
    if (base_char == 'x' || base_char == 'X') base = 16;
    if (base_char == 'o' || base_char == 'O') base = 8;
    if (base_char == 'b' || base_char == 'B') base = 2;
    if (base != 10) {
        const char *what = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
        bool (*digit)(char) = base == 16 ? is_hex_digit : base == 8 ? is_oct_digit : is_bin_digit;
        pos_ += 2;
        std::string digits;
        const int n = digit_run(digit, digits, true);
        if (n <= 0) fail(at, std::string("invalid ") + what + " literal");
        if (is_digit(cur())) fail(here(), std::string("invalid digit '") + cur() + "' in " + what + " literal");
        skip_glued(std::string("invalid ") + what + " literal");
        Token t = make(TokenKind::Int, at, std::string(text_.substr(start, pos_ - start)));
        if (bad) return error_token(at);
        std::uint64_t value = 0;
        const auto max = std::numeric_limits<std::uint64_t>::max();
        for (char c : digits) {
            const auto d = static_cast<std::uint64_t>(digit_value(c));
            if (value > (max - d) / static_cast<std::uint64_t>(base)) {
                diags_.error(at, "integer literal " + t.text + " is too large for a 64-bit integer (max 2**64 - 1)");
                return error_token(at);
            }
            value = value * static_cast<std::uint64_t>(base) + d;
        }
        t.int_value = value;
        return t;
    }

    std::string digits;
    bool is_float = false;
    if (cur() != '.' && digit_run(is_digit, digits, false) < 0) fail(here(), "invalid decimal literal");
    if (!bad && cur() == '.') {
        is_float = true;
        digits += '.';
        ++pos_;
        if (is_digit(cur()) && digit_run(is_digit, digits, false) < 0) fail(here(), "invalid decimal literal");
    }
    if (!bad && (cur() == 'e' || cur() == 'E')) {
        const char sign = peek_char();
        if (is_digit(sign) || ((sign == '+' || sign == '-') && is_digit(peek_char(2)))) {
            is_float = true;
            digits += 'e';
            ++pos_;
            if (cur() == '+' || cur() == '-') digits += text_[pos_++];
            if (digit_run(is_digit, digits, false) < 0) fail(here(), "invalid decimal literal");
        }
    }
    if (!bad && (cur() == 'j' || cur() == 'J')) {
        fail(at, "complex literals are not supported in kernels");
        ++pos_;
    }
    skip_glued("invalid decimal literal");
    if (bad) return error_token(at);

    const std::string spelling(text_.substr(start, pos_ - start));
    if (is_float) {
        Token t = make(TokenKind::Float, at, spelling);
        // from_chars is locale-independent, unlike strtod.
        const std::string s = digits.front() == '.' ? "0" + digits : digits;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), t.float_value);
        if (r.ec != std::errc() || r.ptr != s.data() + s.size()) {
            diags_.error(at, "float literal " + spelling + " is out of range for a 64-bit float");
            return error_token(at);
        }
        return t;
    }
    if (digits.size() > 1 && digits.front() == '0' && digits.find_first_not_of('0') != std::string::npos) {
        diags_.error(at, "leading zeros in decimal integer literals are not permitted; use an 0o prefix for "
                         "octal integers");
        return error_token(at);
    }
    Token t = make(TokenKind::Int, at, spelling);
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), t.int_value);
    if (r.ec != std::errc()) {
        diags_.error(at, "integer literal " + spelling + " is too large for a 64-bit integer (max 2**64 - 1)");
        return error_token(at);
    }
    return t;
}

Token Lexer::string_literal(std::size_t prefix_start, std::string_view prefix) {
    const SourceLocation at = location_at(prefix_start);
    bool raw = false;
    bool bytes = false;
    bool format = false;
    for (char c : prefix) {
        if (c == 'r' || c == 'R') raw = true;
        if (c == 'b' || c == 'B') bytes = true;
        if (c == 'f' || c == 'F') format = true;
    }
    bool bad = false;
    auto fail = [&](SourceLocation where, std::string message) {
        diags_.error(where, std::move(message));
        bad = true;
    };
    if (format) {
        fail(at, "f-strings are not supported in kernels");
        raw = true; // still find the end of the literal, without judging its escapes
    }

    const char quote = cur();
    const bool triple = peek_char(1) == quote && peek_char(2) == quote;
    pos_ += triple ? 3 : 1;
    std::string value;
    for (;;) {
        if (at_end()) {
            diags_.error(at, triple ? "unterminated triple-quoted string literal" : "unterminated string literal");
            return error_token(at);
        }
        const char c = cur();
        if (c == quote) {
            if (!triple) {
                ++pos_;
                break;
            }
            if (peek_char(1) == quote && peek_char(2) == quote) {
                pos_ += 3;
                break;
            }
            value += c;
            ++pos_;
            continue;
        }
        if (at_newline()) {
            if (!triple) {
                diags_.error(at, "unterminated string literal");
                return error_token(at);
            }
            consume_newline();
            value += '\n';
            continue;
        }
        if (c != '\\') {
            if (bytes && static_cast<unsigned char>(c) >= 0x80) {
                fail(here(), "bytes can only contain ASCII literal characters");
                while (static_cast<unsigned char>(cur()) >= 0x80) ++pos_;
                continue;
            }
            if (static_cast<unsigned char>(c) >= 0x80) {
                const std::size_t n = utf8_sequence_length(text_, pos_);
                if (n == 0) {
                    std::size_t length = 1;
                    fail(here(), invalid_utf8_message(text_, pos_, length));
                    pos_ += length;
                    continue;
                }
                value.append(text_.substr(pos_, n));
                pos_ += n;
                continue;
            }
            value += c;
            ++pos_;
            continue;
        }

        const SourceLocation esc_at = here();
        ++pos_;
        if (at_end()) continue; // reported as unterminated
        if (at_newline()) {
            consume_newline();
            if (raw) value += "\\\n";
            continue;
        }
        const char e = cur();
        if (static_cast<unsigned char>(e) >= 0x80) {
            // A backslash before a non-ASCII character: the backslash stays (Python
            // warns outside raw strings) and the character is read as one UTF-8
            // sequence by the next iteration, never split into bytes.
            if (!raw && ++escape_warnings_ <= max_escape_warnings) {
                const std::size_t n = utf8_sequence_length(text_, pos_);
                diags_.warning(esc_at, "invalid escape sequence '\\" +
                                           (n ? std::string(text_.substr(pos_, n)) : show_escaped(e)) + "'");
            }
            value += '\\';
            continue;
        }
        ++pos_;
        if (raw) {
            // A raw string keeps the backslash; it only stops the quote from ending the literal.
            value += '\\';
            value += e;
            continue;
        }
        switch (e) {
        case '\\':
        case '\'':
        case '"': value += e; break;
        case 'a': value += '\a'; break;
        case 'b': value += '\b'; break;
        case 'f': value += '\f'; break;
        case 'n': value += '\n'; break;
        case 'r': value += '\r'; break;
        case 't': value += '\t'; break;
        case 'v': value += '\v'; break;
        case '0':
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
        case '6':
        case '7': {
            std::uint32_t v = static_cast<std::uint32_t>(e - '0');
            for (int i = 0; i < 2 && is_oct_digit(cur()); ++i, ++pos_)
                v = v * 8 + static_cast<std::uint32_t>(cur() - '0');
            if (bytes && v > 0xFF) {
                fail(esc_at, "octal escape value is out of range for bytes");
            } else if (bytes) {
                value += static_cast<char>(v);
            } else {
                append_utf8(value, v);
            }
            break;
        }
        case 'x': {
            if (!is_hex_digit(cur()) || !is_hex_digit(peek_char())) {
                fail(esc_at, "invalid \\x escape: expected two hexadecimal digits");
                break;
            }
            const auto v = static_cast<std::uint32_t>(digit_value(cur()) * 16 + digit_value(peek_char()));
            pos_ += 2;
            if (bytes)
                value += static_cast<char>(v);
            else
                append_utf8(value, v);
            break;
        }
        case 'u':
        case 'U':
        case 'N':
            if (bytes) {
                value += '\\';
                value += e;
                break;
            }
            if (e == 'N') {
                fail(esc_at, "\\N{...} escapes are not supported in kernels");
                break;
            } else {
                const int n = e == 'u' ? 4 : 8;
                std::uint32_t v = 0;
                int i = 0;
                for (; i < n && is_hex_digit(cur()); ++i, ++pos_)
                    v = v * 16 + static_cast<std::uint32_t>(digit_value(cur()));
                if (i < n) {
                    fail(esc_at, std::string("invalid \\") + e + " escape: expected " + std::to_string(n) +
                                     " hexadecimal digits");
                } else if (v > 0x10FFFF) {
                    fail(esc_at, std::string("invalid \\") + e + " escape: code point out of range");
                } else if (v >= 0xD800 && v <= 0xDFFF) {
                    fail(esc_at, std::string("invalid \\") + e + " escape: surrogate code point");
                } else {
                    append_utf8(value, v);
                }
            }
            break;
        default:
            // Python keeps an unknown escape as written (and warns about it).
            if (++escape_warnings_ <= max_escape_warnings)
                diags_.warning(esc_at, "invalid escape sequence '\\" + show_escaped(e) + "'");
            value += '\\';
            value += e;
            break;
        }
    }
    if (bad) return error_token(at);
    Token t = make(TokenKind::String, at, std::move(value));
    t.is_bytes = bytes;
    return t;
}

Token Lexer::op_or_bracket() {
    const SourceLocation at = here();
    const std::string_view rest = text_.substr(pos_);
    std::string_view op;
    // The first character rules out almost every candidate before a memcmp:
    // comparing every operator token with all 24 spellings was a tenth of
    // parsing (bench/frontend).
    auto starts_with = [&](std::string_view o) { return rest[0] == o[0] && rest.substr(0, o.size()) == o; };
    for (std::string_view o : ops3)
        if (starts_with(o)) op = o;
    if (op.empty())
        for (std::string_view o : ops2)
            if (starts_with(o)) op = o;
    if (op.empty()) op = rest.substr(0, 1);
    pos_ += op.size();

    const char c = op.front();
    if (op.size() == 1 && (c == '(' || c == '[' || c == '{')) brackets_.push_back(Bracket{c, at});
    // A mismatched closer still pops: the parser reports the mismatch, and the
    // line structure stays as the writer most likely meant it.
    if (op.size() == 1 && (c == ')' || c == ']' || c == '}') && !brackets_.empty()) brackets_.pop_back();
    return make(TokenKind::Op, at, std::string(op));
}

void Lexer::skip_invalid_character() {
    const SourceLocation at = here();
    const auto lead = static_cast<unsigned char>(cur());
    if (lead < 0x80) {
        // A run of one bad byte (100,000 NULs, a pasted block of control
        // characters) is one error, not one per byte.
        std::size_t run = 1;
        while (pos_ + run < text_.size() && text_[pos_ + run] == cur()) ++run;
        const std::string repeated = run > 1 ? " (" + std::to_string(run) + " in a row)" : "";
        diags_.error(at, (lead == 0 ? std::string("source code cannot contain null bytes") : "invalid character " + show_char(cur())) +
                             repeated);
        pos_ += run;
        return;
    }
    std::uint32_t cp = 0;
    const std::size_t len = utf8_sequence_length(text_, pos_, &cp);
    if (len == 0) {
        std::size_t length = 1;
        diags_.error(at, invalid_utf8_message(text_, pos_, length));
        pos_ += length;
        return;
    }
    static constexpr char digits[] = "0123456789ABCDEF";
    std::string hex;
    for (int shift = cp > 0xFFFF ? 20 : 12; shift >= 0; shift -= 4) hex += digits[(cp >> shift) & 0xF];
    diags_.error(at, "invalid character U+" + hex + " (only ASCII is allowed outside strings and comments)");
    pos_ += len;
}

void Lexer::skip_comment() {
    while (!at_end() && cur() != '\n' && cur() != '\r') {
        if (static_cast<unsigned char>(cur()) < 0x80) {
            ++pos_;
            continue;
        }
        const std::size_t n = utf8_sequence_length(text_, pos_);
        if (n > 0) {
            pos_ += n;
            continue;
        }
        std::size_t length = 1;
        diags_.error(here(), invalid_utf8_message(text_, pos_, length));
        pos_ += length;
    }
}

std::vector<Token> tokenize(const SourceFile &file, DiagnosticEngine &diags) {
    Lexer lexer(file, diags);
    std::vector<Token> out;
    for (;;) {
        out.push_back(lexer.next());
        if (out.back().kind == TokenKind::EndOfFile) return out;
    }
}

} // namespace weft::kernel::detail
