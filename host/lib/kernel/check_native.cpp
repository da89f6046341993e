// @wp.func_native: a function whose body is C++ given as a string, with an
// optional adjoint (adj_snippet) and replay (replay_snippet), as in Warp. The
// snippet sees the parameters under their own names, and the adjoint their
// adjoints as adj_<name> and the result's as adj_ret. The text is part of the
// generated source, so the module hash covers it; what would reach beyond it
// (#include of another file) or hide where it came from (#line) is refused.
#include "checker.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

namespace weft::kernel::detail {

using ast::Expr;

namespace {

struct Forbidden {
    std::string what;    // the directive ("include") or operator ("_Pragma")
    std::uint32_t line;  // 0-based within the snippet
    std::uint32_t column; // 1-based
};

bool identifier_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// Whether the quote at `at` opens a raw string: R, LR, uR, UR or u8R right
/// before it, as a whole token (xuR"( is the identifier xuR and a string).
bool raw_prefix(const std::string &s, std::size_t at) {
    for (const char *prefix : {"u8R", "LR", "uR", "UR", "R"}) {
        const std::size_t n = std::char_traits<char>::length(prefix);
        if (at >= n && s.compare(at - n, n, prefix) == 0 && (at == n || !identifier_char(s[at - n - 1]))) return true;
    }
    return false;
}

/// Whether the ' at `at` continues a preprocessing number (a digit separator,
/// 1'000 or 0x1'F): a pp-number starts with a digit (or .digit) and runs over
/// identifier characters, dots and separators.
bool in_pp_number(const std::string &s, std::size_t at) {
    if (at + 1 >= s.size() || !identifier_char(s[at + 1])) return false;
    std::size_t k = at;
    while (k > 0 && (identifier_char(s[k - 1]) || s[k - 1] == '.' || s[k - 1] == '\'')) --k;
    return k < at && (std::isdigit(static_cast<unsigned char>(s[k])) ||
                      (s[k] == '.' && k + 1 < at && std::isdigit(static_cast<unsigned char>(s[k + 1]))));
}

bool directive_space(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }

/// The first directive or operator in C++ `text` that reads another file or
/// changes what the compiler reports (#include, #include_next, #import,
/// #embed, #line, #pragma, _Pragma, __has_include, __has_embed), as the
/// preprocessor sees the text: backslash-newlines spliced away, comments one
/// space, literals opaque, `%:` as `#`, form feeds and vertical tabs as spaces.
std::optional<Forbidden> forbidden_preprocessing(const std::string &text) {
    // Phases 1-3 into `clean`, each character remembering where it came from.
    std::string clean;
    std::vector<std::size_t> origin;
    std::string spliced;
    std::vector<std::size_t> spliced_origin;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\') {
            std::size_t j = i + 1;
            while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r')) ++j;
            if (j < text.size() && text[j] == '\n') {
                i = j;
                continue;
            }
        }
        spliced += text[i];
        spliced_origin.push_back(i);
    }
    for (std::size_t i = 0; i < spliced.size();) {
        const char c = spliced[i];
        if (c == '/' && i + 1 < spliced.size() && spliced[i + 1] == '/') {
            while (i < spliced.size() && spliced[i] != '\n') ++i;
            clean += ' ';
            origin.push_back(spliced_origin[i - 1]);
        } else if (c == '/' && i + 1 < spliced.size() && spliced[i + 1] == '*') {
            const std::size_t close = spliced.find("*/", i + 2);
            clean += ' ';
            origin.push_back(spliced_origin[i]);
            i = close == std::string::npos ? spliced.size() : close + 2;
        } else if (c == '\'' && i > 0 && in_pp_number(spliced, i)) {
            clean += c; // a digit separator (1'000), not a character literal
            origin.push_back(spliced_origin[i]);
            ++i;
        } else if (c == '"' || c == '\'') {
            // A raw string R"delim( ... )delim" ends at its delimiter only.
            const bool raw = c == '"' && raw_prefix(spliced, i);
            std::size_t end = i + 1;
            if (raw) {
                const std::size_t paren = spliced.find('(', i + 1);
                const std::string close = ")" + spliced.substr(i + 1, paren == std::string::npos ? 0 : paren - i - 1) + "\"";
                const std::size_t at = paren == std::string::npos ? std::string::npos : spliced.find(close, paren);
                end = at == std::string::npos ? spliced.size() : at + close.size();
            } else {
                while (end < spliced.size() && spliced[end] != c && spliced[end] != '\n')
                    end += spliced[end] == '\\' ? 2 : 1;
                end = std::min(end + 1, spliced.size());
            }
            for (std::size_t k = i; k < end; ++k) {
                // The literal's quotes stay, its contents become spaces (newlines kept).
                clean += (k == i || k + 1 == end || spliced[k] == '\n') ? spliced[k] : ' ';
                origin.push_back(spliced_origin[k]);
            }
            i = end;
        } else {
            clean += c;
            origin.push_back(spliced_origin[i]);
            ++i;
        }
    }
    auto position = [&](std::size_t at) {
        const std::size_t where = at < origin.size() ? origin[at] : text.size();
        const std::size_t line_start = where == 0 ? 0 : text.rfind('\n', where - 1);
        Forbidden f;
        f.line = static_cast<std::uint32_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(where), '\n'));
        f.column = static_cast<std::uint32_t>(line_start == std::string::npos ? where + 1 : where - line_start);
        return f;
    };
    // Phase 4: directives at the start of a line.
    static const char *const directives[] = {"include", "include_next", "import", "embed", "line", "pragma"};
    for (std::size_t start = 0; start <= clean.size();) {
        const std::size_t end = std::min(clean.find('\n', start), clean.size());
        std::size_t k = start;
        while (k < end && directive_space(clean[k])) ++k;
        std::size_t hash = k;
        if (k < end && clean[k] == '#') ++k;
        else if (k + 1 < end && clean[k] == '%' && clean[k + 1] == ':') k += 2;
        else hash = std::string::npos;
        if (hash != std::string::npos) {
            while (k < end && directive_space(clean[k])) ++k;
            std::size_t name_end = k;
            while (name_end < end && identifier_char(clean[name_end])) ++name_end;
            const std::string name = clean.substr(k, name_end - k);
            // A GNU line marker (# 12 "file") moves diagnostics as #line does.
            if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0]))) {
                Forbidden f = position(hash);
                f.what = "line";
                return f;
            }
            for (const char *d : directives)
                if (name == d) {
                    Forbidden f = position(hash);
                    f.what = name;
                    return f;
                }
        }
        if (end == clean.size()) break;
        start = end + 1;
    }
    // Token pasting could build any of the words below after this scan.
    if (const std::size_t paste = clean.find("##"); paste != std::string::npos) {
        Forbidden f = position(paste);
        f.what = "##";
        return f;
    }
    if (const std::size_t paste = clean.find("%:%:"); paste != std::string::npos) {
        Forbidden f = position(paste);
        f.what = "##";
        return f;
    }
    // Operators that do the same from inside an expression or an #if.
    for (std::size_t i = 0; i < clean.size();) {
        if (!identifier_char(clean[i])) {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < clean.size() && identifier_char(clean[end])) ++end;
        const std::string word = clean.substr(i, end - i);
        for (const char *op : {"_Pragma", "__has_include", "__has_include_next", "__has_embed"})
            if (word == op) {
                Forbidden f = position(i);
                f.what = word;
                return f;
            }
        i = end;
    }
    return std::nullopt;
}

} // namespace

std::optional<ir::Function::Snippet> Checker::snippet_text(const Expr &e, const std::string &what) {
    const Expr *value = &e;
    if (e.kind == Expr::Kind::Name) {
        const auto it = string_constants_.find(e.text);
        if (it == string_constants_.end()) {
            diags_.error(e.location, what + " must be a string, or the name of a module-level string; '" + e.text +
                                         "' is not one");
            return std::nullopt;
        }
        value = it->second;
    }
    if (value->kind != Expr::Kind::String) {
        diags_.error(e.location, what + " must be a string of C++ statements");
        return std::nullopt;
    }
    // Directives that would pull in text the module hash does not cover, or
    // move diagnostics away from this file, found as the preprocessor finds
    // them (phases 1-4): after line splices, with comments as spaces, in
    // string literals never, with %: for # and any whitespace.
    if (const auto bad = forbidden_preprocessing(value->text)) {
        SourceLocation at = value->location;
        at.line += bad->line;
        if (bad->line) at.column = bad->column;
        const bool include = bad->what != "line" && bad->what != "pragma" && bad->what != "_Pragma";
        if (bad->what == "##")
            diags_.error(at, what + ": token pasting (##) is not allowed in a native snippet (it could build a "
                                    "directive or operator weft refuses, such as _Pragma, after weft has looked)");
        else
            diags_.error(at, what + ": " + (bad->what[0] == '_' ? "" : "#") + bad->what +
                                 " is not allowed in a native snippet (" +
                                 (include ? "a plugin's preamble or native types bring in headers, where the module "
                                            "hash covers them"
                                          : "weft marks the snippet's lines itself") +
                                 ")");
        return std::nullopt;
    }
    return ir::Function::Snippet{value->text, value->location};
}

bool Checker::stub_body(const ast::FunctionDef &f, const std::string &what, const std::string &why) {
    for (const ast::StmtPtr &s : f.body) {
        const bool empty = s->kind == ast::Stmt::Kind::Pass ||
                           (s->kind == ast::Stmt::Kind::Expr &&
                            (s->value->kind == Expr::Kind::Ellipsis || s->value->kind == Expr::Kind::String));
        if (!empty) {
            diags_.error(s->location, what + "'s body is '...', pass or a docstring: " + why);
            return false;
        }
    }
    return true;
}

bool Checker::native_decorator(const ast::FunctionDef &f, const ast::Decorator &d) {
    if (!d.called || d.args.empty() || d.args.size() > 3) {
        diags_.error(d.location, "@wp.func_native takes the C++ body: @wp.func_native(snippet, adj_snippet=None, "
                                 "replay_snippet=None)");
        return false;
    }
    NativeSnippets n;
    bool ok = true;
    auto take = [&](const Expr &e, ir::Function::Snippet &into, const std::string &what) {
        if (e.kind == Expr::Kind::Name && e.text == "None") return;
        if (auto s = snippet_text(e, what)) into = std::move(*s);
        else ok = false;
    };
    take(*d.args[0], n.forward, "the snippet");
    if (d.args.size() > 1) take(*d.args[1], n.adjoint, "adj_snippet");
    if (d.args.size() > 2) take(*d.args[2], n.replay, "replay_snippet");
    for (const ast::Keyword &k : d.keywords) {
        if (k.name == "adj_snippet" && d.args.size() < 2) take(*k.value, n.adjoint, "adj_snippet");
        else if (k.name == "replay_snippet" && d.args.size() < 3) take(*k.value, n.replay, "replay_snippet");
        else {
            diags_.error(k.location, "@wp.func_native: unknown or repeated option '" + k.name +
                                         "' (expected adj_snippet, replay_snippet)");
            ok = false;
        }
    }
    if (!stub_body(f, "a @wp.func_native function", "the snippet is its body")) return false;
    if (ok) native_funcs_[&f] = std::move(n);
    return ok;
}

} // namespace weft::kernel::detail
