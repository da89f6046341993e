#include "kernel/call_arguments.hpp"

#include <algorithm>

namespace weft::kernel::detail {

ArgumentSlots place_arguments(const ast::Expr &call, const std::vector<std::string> &params) {
    ArgumentSlots out;
    const std::size_t positional = call.children.size() - 1;
    if (positional > params.size()) {
        out.problem = ArgumentSlots::Problem::TooMany;
        return out;
    }
    out.slots.assign(params.size(), nullptr);
    for (std::size_t i = 0; i < positional; ++i) out.slots[i] = call.children[i + 1].get();
    for (const ast::Keyword &k : call.keywords) {
        const auto at = std::find(params.begin(), params.end(), k.name);
        if (at == params.end() || out.slots[static_cast<std::size_t>(at - params.begin())]) {
            out.problem = at == params.end() ? ArgumentSlots::Problem::UnknownKeyword : ArgumentSlots::Problem::Repeated;
            out.keyword = &k;
            return out;
        }
        out.slots[static_cast<std::size_t>(at - params.begin())] = k.value.get();
    }
    return out;
}

std::vector<std::string> param_names(const std::vector<ast::Param> &params) {
    std::vector<std::string> names;
    for (const ast::Param &p : params) names.push_back(p.name);
    return names;
}

} // namespace weft::kernel::detail
