// The split is a copy of the lowered IR: each module keeps only what its
// kernels reach, so a change to another kernel (or to a function only another
// kernel calls) leaves its hash, and its cache entry, as they were.
#include "weft/kernel/unique_kernels.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace weft::kernel {

namespace {

using ir::Expr;
using ir::Function;
using ir::Module;
using ir::Stmt;

void renumber_calls(Expr &e, const std::map<int, int> &index) {
    if (e.kind == Expr::Kind::Call) e.index = index.at(e.index);
    for (ir::ExprPtr &a : e.args) renumber_calls(*a, index);
}

void renumber_calls(Stmt &s, const std::map<int, int> &index) {
    for (ir::Expr *e : {s.target.get(), s.value.get(), s.cond.get()})
        if (e) renumber_calls(*e, index);
    for (ir::ExprPtr &a : s.args) renumber_calls(*a, index);
    for (ir::StmtPtr &b : s.body) renumber_calls(*b, index);
    for (ir::StmtPtr &b : s.orelse) renumber_calls(*b, index);
}

/// `kernels` of `m` and the functions they reach (calls, custom adjoints and
/// replays), in `m`'s order (dependencies first), as module `name`.
SplitModule extract(const Module &m, const std::vector<std::size_t> &kernels, std::string name,
                    ir::ModuleOptions options) {
    const std::vector<std::size_t> reached = ir::reached_functions(m, kernels);

    Module out;
    out.name = m.name;
    out.source_path = m.source_path;
    out.warp_alias = m.warp_alias;
    out.options = options;
    out.lowered = m.lowered;
    out.structs = m.structs;
    out.constants = m.constants;
    out.references = m.references;
    std::map<int, int> index;
    for (std::size_t i : reached) index[static_cast<int>(i)] = static_cast<int>(index.size());
    for (std::size_t i : reached) {
        out.functions.push_back(m.functions[i].clone());
        for (ir::StmtPtr &s : out.functions.back().body) renumber_calls(*s, index);
    }
    std::vector<std::string> &called = out.references.functions;
    called.erase(std::remove_if(called.begin(), called.end(),
                                [&](const std::string &mangled) {
                                    return std::none_of(out.functions.begin(), out.functions.end(),
                                                        [&](const Function &f) { return f.mangled_name == mangled; });
                                }),
                 called.end());
    return {std::move(name), std::move(out)};
}

} // namespace

std::vector<SplitModule> split_unique_kernels(Module module) {
    struct Group {
        std::string name;
        std::vector<std::size_t> kernels;
    };
    std::vector<Group> unique;
    std::vector<std::size_t> rest;
    std::set<std::string> taken;
    for (std::size_t i = 0; i < module.functions.size(); ++i) {
        const Function &f = module.functions[i];
        if (!f.is_kernel) continue;
        if (!f.unique) {
            rest.push_back(i);
            continue;
        }
        // The instances of a generic kernel share its name and its definition
        // and differ in their parameter types; kernels made by one factory
        // function (equal types) are modules of their own.
        const auto same_types = [](const Function &a, const Function &b) {
            if (a.params.size() != b.params.size()) return false;
            for (std::size_t p = 0; p < a.params.size(); ++p)
                if (!(a.params[p].type == b.params[p].type)) return false;
            return true;
        };
        auto g = std::find_if(unique.begin(), unique.end(), [&](const Group &x) {
            const Function &first = module.functions[x.kernels.front()];
            if (first.name != f.name || first.location.line != f.location.line ||
                first.location.column != f.location.column)
                return false;
            return std::none_of(x.kernels.begin(), x.kernels.end(),
                                [&](std::size_t k) { return same_types(module.functions[k], f); });
        });
        if (g == unique.end()) {
            std::string name = module.name + "." + f.name;
            for (int n = 2; !taken.insert(name).second; ++n) name = module.name + "." + f.name + "_" + std::to_string(n);
            unique.push_back({std::move(name), {}});
            g = unique.end() - 1;
        }
        g->kernels.push_back(i);
    }
    std::vector<SplitModule> out;
    if (unique.empty()) {
        std::string name = module.name;
        out.push_back({std::move(name), std::move(module)});
        return out;
    }
    if (!rest.empty()) out.push_back(extract(module, rest, module.name, module.options));
    for (const Group &g : unique)
        out.push_back(extract(module, g.kernels, g.name, module.functions[g.kernels.front()].own_options));
    return out;
}

} // namespace weft::kernel
