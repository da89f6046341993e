// @wp.func_native: a function whose body is C++ given as a string, with an
// optional adjoint (adj_snippet) and replay (replay_snippet), as in Warp. The
// snippet sees the parameters under their own names, and the adjoint their
// adjoints as adj_<name> and the result's as adj_ret. The text is part of the
// generated source, so the module hash covers it; what would reach beyond it
// (#include of another file) or hide where it came from (#line) is refused.
#include "checker.hpp"

#include <algorithm>

namespace weft::kernel::detail {

using ast::Expr;

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
    // move diagnostics away from this file.
    std::size_t line_start = 0;
    std::uint32_t line = 0;
    while (line_start <= value->text.size()) {
        const std::size_t end = std::min(value->text.find('\n', line_start), value->text.size());
        const std::string_view l(value->text.data() + line_start, end - line_start);
        const std::size_t hash = l.find_first_not_of(" \t");
        if (hash != std::string_view::npos && l[hash] == '#') {
            const std::string_view directive = l.substr(l.find_first_not_of(" \t", hash + 1) == std::string_view::npos
                                                            ? l.size()
                                                            : l.find_first_not_of(" \t", hash + 1));
            for (const char *banned : {"include", "line", "pragma", "import"})
                if (directive.rfind(banned, 0) == 0) {
                    SourceLocation at = value->location;
                    at.line += line;
                    if (line) at.column = static_cast<std::uint32_t>(hash + 1);
                    diags_.error(at, what + ": #" + std::string(banned) + " is not allowed in a native snippet (" +
                                         (std::string(banned) == "include" || std::string(banned) == "import"
                                              ? "a plugin's preamble or native types bring in headers, where the "
                                                "module hash covers them"
                                              : "weft marks the snippet's lines itself") +
                                         ")");
                    return std::nullopt;
                }
        }
        if (end == value->text.size()) break;
        line_start = end + 1;
        ++line;
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
