// `weft build FILE.py [--plugin P]... --target cpu --target sm_90 --target compute_90`:
// compiles a kernel module ahead of time and prints the artifact paths, one
// per target: devices (cpu, cuda:N) first, then explicit archs, each group in
// the order given (Warp's compile_aot order).
#include "commands.hpp"

#include "weft/runtime/cuda.hpp"
#include "weft/host/host.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace weft::cli {

namespace {
/// "cpu", "sm_90" (CUBIN), "compute_90" (PTX), or a cache target name ("cuda-sm_90-cubin").
Target parse_target(const std::string &t) {
    auto arch = [&](std::size_t prefix) {
        const std::string digits = t.substr(prefix);
        if (digits.empty() || digits.size() > 3 || !std::all_of(digits.begin(), digits.end(), [](char c) {
                return std::isdigit(static_cast<unsigned char>(c));
            }))
            throw UserError("invalid target '" + t + "': expected cpu, sm_XX, compute_XX or cuda-sm_XX-cubin");
        return std::stoi(digits);
    };
    if (t == "cpu") return Target::cpu();
    if (t == "cuda" || t.rfind("cuda:", 0) == 0) {
        // A device: the CUBIN for its compute capability (needs the driver, not the GPU's absence hidden).
        const int device = t == "cuda" ? 0 : arch(5);
        return Target::cuda_cubin(cuda_compute_capability(device));
    }
    if (t.rfind("sm_", 0) == 0) return Target::cuda_cubin(arch(3));
    if (t.rfind("compute_", 0) == 0) return Target::cuda_ptx(arch(8));
    const Target target = Target::parse(t);
    if (target.output == Target::Output::Unit)
        throw UserError("invalid target '" + t + "': a compile unit is what the cache keeps of a module, not a build "
                        "target (build for cpu)");
    return target;
}
} // namespace

int kernel_build(const KernelBuildOptions &o) {
    HostOptions ho;
    for (const std::string &p : o.search_path) ho.search_path.emplace_back(p);
    apply_host_settings(ho);
    if (!o.cache_dir.empty()) ho.cache_dir = o.cache_dir;
    ho.quiet = true;
    // Devices first, then explicit archs, each group in the order given.
    std::vector<std::string> names = o.targets.empty() ? std::vector<std::string>{"cpu"} : o.targets;
    std::stable_partition(names.begin(), names.end(),
                          [](const std::string &t) { return t == "cpu" || t == "cuda" || t.rfind("cuda:", 0) == 0; });
    std::vector<Target> targets;
    for (const std::string &t : names) targets.push_back(parse_target(t));
    Host host(ho);
    for (const std::string &p : o.plugins) load_plugin_argument(host, p);
    ModuleLoadOptions mo;
    mo.name = o.name;
    mo.opt_level = o.opt_level;
    mo.fast_math = o.fast_math;
    mo.fmad = !o.no_fmad;
    mo.line_info = o.line_info;
    const std::vector<std::filesystem::path> paths = host.compile_aot(o.file, targets, mo, o.output_dir);
    if (o.json) {
        nlohmann::json artifacts = nlohmann::json::array();
        // Module by module (a module="unique" kernel is one of its own), each with every target in order.
        for (std::size_t i = 0; i < paths.size(); ++i)
            artifacts.push_back({{"target", targets[i % targets.size()].str()}, {"path", paths[i].string()}});
        print_out("{}\n", nlohmann::json{{"artifacts", artifacts}}.dump(2, ' ', false, json_invalid_utf8));
    } else {
        for (const std::filesystem::path &p : paths) print_out("{}\n", p.string());
    }
    return 0;
}

} // namespace weft::cli
