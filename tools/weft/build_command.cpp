// `weft build FILE.py [--plugin P]... --target cpu`: compiles a kernel module
// ahead of time and prints the artifact paths, one per target, in order.
#include "commands.hpp"

#include "weft/host/host.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace weft::cli {

int kernel_build(const KernelBuildOptions &o) {
    HostOptions ho;
    for (const std::string &p : o.search_path) ho.search_path.emplace_back(p);
    if (!o.cache_dir.empty()) ho.cache_dir = o.cache_dir;
    ho.quiet = true;
    Host host(ho);
    for (const std::string &p : o.plugins) host.load(p);
    std::vector<std::string> targets = o.targets.empty() ? std::vector<std::string>{"cpu"} : o.targets;
    for (const std::string &t : targets)
        if (t != "cpu")
            throw UserError("target '" + t +
                            "' is not available: this weft builds for the CPU only (cuda targets come with the CUDA backend)");
    nlohmann::json artifacts = nlohmann::json::array();
    std::vector<std::string> lines;
    for (const std::string &t : targets) {        ModuleLoadOptions mo;
        mo.opt_level = o.opt_level;
        mo.fast_math = o.fast_math;
        CompiledModule &m = host.load_module(o.file, mo);
        lines.push_back(m.artifact_path().string());
        artifacts.push_back({{"target", t},
                             {"path", m.artifact_path().string()},
                             {"module", m.name()},
                             {"hash", m.hash()},
                             {"cached", m.from_cache()}});
    }
    if (o.json) fmt::print("{}\n", nlohmann::json{{"artifacts", artifacts}}.dump(2));
    else
        for (const std::string &l : lines) fmt::print("{}\n", l);
    return 0;
}

} // namespace weft::cli
