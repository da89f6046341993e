#include "bundled_functions.hpp"

#include "weft/kernel/diagnostics.hpp"
#include "weft/kernel/parser.hpp"

#include <map>
#include <set>
#include <stdexcept>

namespace weft::kernel::detail {

namespace {

struct Bundled {
    SourceFile file;
    ast::Module tree;
    std::map<std::string, std::vector<std::size_t>> by_name; // overloads share a name
    std::vector<std::string> names;                          // in file order
};

/// Parsed once per process; the text is weft's own, so a parse error is a
/// defect of this build (tests/warp_semantics/warp_math.py calls every name).
const Bundled &bundled() {
    static const Bundled b = [] {
        Bundled out{SourceFile("warp/math.py", std::string(warp_math_source())), {}, {}, {}};
        DiagnosticEngine diags(out.file, 0);
        out.tree = parse_module(out.file, diags);
        if (diags.has_errors()) throw std::logic_error("weft's bundled warp.math does not parse:\n" + diags.format_all());
        for (std::size_t i = 0; i < out.tree.functions.size(); ++i) {
            auto &slot = out.by_name[out.tree.functions[i].name];
            if (slot.empty()) out.names.push_back(out.tree.functions[i].name);
            slot.push_back(i);
        }
        return out;
    }();
    return b;
}

/// The callee's name when a call is `name(...)` or `alias.name(...)` with a
/// Warp alias; "" otherwise.
std::string called_name(const ast::Expr &call, const std::set<std::string> &warp_aliases) {
    const ast::Expr &callee = *call.children.front();
    if (callee.kind == ast::Expr::Kind::Name) return callee.text;
    if (callee.kind == ast::Expr::Kind::Attribute && callee.children.front()->kind == ast::Expr::Kind::Name &&
        warp_aliases.count(callee.children.front()->text))
        return callee.text;
    return {};
}

struct CallFinder {
    const std::set<std::string> &aliases;
    const Bundled &b;
    std::map<std::string, SourceLocation> &found; // first call of each bundled name
    SourceLocation fixed;                         // when valid: the location to record instead

    void expr(const ast::Expr &e) {
        if (e.kind == ast::Expr::Kind::Call) {
            const std::string name = called_name(e, aliases);
            if (!name.empty() && b.by_name.count(name)) found.emplace(name, fixed.valid() ? fixed : e.location);
        }
        for (const ast::ExprPtr &c : e.children)
            if (c) expr(*c);
        for (const ast::Keyword &k : e.keywords)
            if (k.value) expr(*k.value);
    }
    void stmt(const ast::Stmt &s) {
        for (const ast::ExprPtr &t : s.targets)
            if (t) expr(*t);
        for (const ast::ExprPtr *e : {&s.value, &s.annotation, &s.test, &s.iter})
            if (*e) expr(**e);
        for (const ast::StmtPtr &c : s.body) stmt(*c);
        for (const ast::StmtPtr &c : s.orelse) stmt(*c);
    }
    void function(const ast::FunctionDef &f) {
        for (const ast::Param &p : f.params)
            if (p.default_value) expr(*p.default_value);
        for (const ast::StmtPtr &s : f.body) stmt(*s);
    }
};

void relocate(ast::Expr &e, SourceLocation at) {
    e.location = at;
    for (ast::ExprPtr &c : e.children)
        if (c) relocate(*c, at);
    for (ast::Keyword &k : e.keywords) {
        k.location = at;
        if (k.value) relocate(*k.value, at);
    }
}

void relocate(ast::Stmt &s, SourceLocation at) {
    s.location = at;
    for (ast::ExprPtr &t : s.targets)
        if (t) relocate(*t, at);
    for (ast::ExprPtr *e : {&s.value, &s.annotation, &s.test, &s.iter})
        if (*e) relocate(**e, at);
    for (ast::StmtPtr &c : s.body) relocate(*c, at);
    for (ast::StmtPtr &c : s.orelse) relocate(*c, at);
}

void relocate(ast::FunctionDef &f, SourceLocation at) {
    f.location = at;
    for (ast::Decorator &d : f.decorators) {
        d.location = at;
        for (ast::Keyword &k : d.keywords) {
            k.location = at;
            if (k.value) relocate(*k.value, at);
        }
        for (ast::ExprPtr &a : d.args) relocate(*a, at);
    }
    for (ast::Param &p : f.params) {
        p.location = at;
        if (p.annotation) relocate(*p.annotation, at);
        if (p.default_value) relocate(*p.default_value, at);
    }
    if (f.returns) relocate(*f.returns, at);
    for (ast::StmtPtr &s : f.body) relocate(*s, at);
}

} // namespace

void add_bundled_functions(ast::Module &tree) {
    // Names the module gives a meaning of its own keep it: its definition,
    // not Warp's, is the one its calls mean.
    std::set<std::string> own;
    for (const ast::FunctionDef &f : tree.functions) own.insert(f.name);
    for (const ast::ClassDef &c : tree.classes) own.insert(c.name);
    for (const ast::TopLevelAssign &a : tree.assignments) own.insert(a.name);
    std::set<std::string> aliases{"wp", "warp"};
    for (const ast::Import &i : tree.imports) {
        if (i.module == "warp" && i.names.empty()) aliases.insert(i.alias);
        for (const auto &[name, alias] : i.names) own.insert(alias);
    }
    const Bundled &b = bundled();
    std::map<std::string, SourceLocation> called;
    CallFinder user{aliases, b, called, {}};
    for (const ast::FunctionDef &f : tree.functions) user.function(f);
    for (auto it = called.begin(); it != called.end();)
        it = own.count(it->first) ? called.erase(it) : std::next(it);
    if (called.empty()) return;
    // The helpers they call, each located where its first caller is.
    const std::set<std::string> bundled_aliases{"wp", "warp"};
    std::vector<std::string> pending;
    for (const auto &[name, at] : called) pending.push_back(name);
    while (!pending.empty()) {
        const std::string name = pending.back();
        pending.pop_back();
        std::map<std::string, SourceLocation> more;
        CallFinder inner{bundled_aliases, b, more, called.at(name)};
        for (std::size_t i : b.by_name.at(name)) inner.function(b.tree.functions[i]);
        for (const auto &[dep, at] : more)
            if (!own.count(dep) && called.emplace(dep, at).second) pending.push_back(dep);
    }
    // Ahead of the module's own items, in warp.math's order.
    std::vector<std::pair<char, std::size_t>> order;
    for (const std::string &name : b.names) {
        const auto at = called.find(name);
        if (at == called.end()) continue;
        for (std::size_t i : b.by_name.at(name)) {
            ast::FunctionDef copy = ast::clone(b.tree.functions[i]);
            relocate(copy, at->second);
            copy.bundled_from = "warp.math";
            order.emplace_back('f', tree.functions.size());
            tree.functions.push_back(std::move(copy));
        }
    }
    tree.order.insert(tree.order.begin(), order.begin(), order.end());
}

} // namespace weft::kernel::detail
