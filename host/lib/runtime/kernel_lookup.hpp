// Kernel lookup by name, shared by CPU modules (CompiledModule) and CUDA
// modules (CudaModule): one list of kernel records, one error for a wrong name.
#pragma once

#include "weft/support/error.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace weft::detail {

/// The names of `kernels` (records with a `name` member), in module order;
/// the instances of a generic kernel (wp.overload) share one name, listed once.
template <class Impl> std::vector<std::string> kernel_names(const std::vector<std::shared_ptr<Impl>> &kernels) {
    std::vector<std::string> names;
    names.reserve(kernels.size());
    for (const auto &k : kernels)
        if (std::find(names.begin(), names.end(), k->name) == names.end()) names.push_back(k->name);
    return names;
}

/// The kernel called `name`; UserError naming the module's kernels when there is none.
template <class Impl>
const std::shared_ptr<Impl> &find_kernel(const std::vector<std::shared_ptr<Impl>> &kernels, const std::string &module,
                                         std::string_view name) {
    for (const auto &k : kernels)
        if (k->name == name) return k;
    // Warp's kernel key: the decorator's name= finds a kernel too.
    for (const auto &k : kernels)
        if (!k->key.empty() && k->key == name) return k;
    std::string known;
    for (const auto &k : kernels) known += (known.empty() ? "" : ", ") + k->name;
    throw UserError("module '" + module + "' has no kernel '" + std::string(name) + "' (its kernels: " +
                    (known.empty() ? "none" : known) + ")");
}

} // namespace weft::detail
