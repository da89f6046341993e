// The build inputs a plugin contributes to the modules that use it (and,
// later, that a module sets for itself). Plain data; nothing is checked here:
// paths are checked when a module's options are resolved for a build.
#pragma once

#include <string>
#include <vector>

namespace weft {

struct ModuleBuildOptions {
    std::vector<std::string> extra_cuda_include_dirs;
    std::vector<std::string> extra_cpu_include_dirs;
    std::string extra_cuda_preamble;
    std::string extra_cpu_preamble;
    std::vector<std::string> extra_build_dependencies;

    bool empty() const {
        return extra_cuda_include_dirs.empty() && extra_cpu_include_dirs.empty() && extra_cuda_preamble.empty() &&
               extra_cpu_preamble.empty() && extra_build_dependencies.empty();
    }
    friend bool operator==(const ModuleBuildOptions &, const ModuleBuildOptions &) = default;
};

} // namespace weft
