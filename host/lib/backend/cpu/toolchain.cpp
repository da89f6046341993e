// Which clang the in-process driver is, target initialization, and the
// toolchain identity that enters cache keys.
#include "internal.hpp"
#include "weft/support/environment.hpp"

#include <clang/Basic/Version.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <tuple>

#ifndef WEFT_CLANG_EXECUTABLE
#define WEFT_CLANG_EXECUTABLE "/usr/lib/llvm-19/bin/clang++"
#endif

namespace fs = std::filesystem;

namespace weft::backend {

namespace {
fs::path find_clang() {
    std::vector<fs::path> candidates;
    if (const char *env = environment_override("WEFT_CLANG")) candidates.emplace_back(env);
    candidates.emplace_back(WEFT_CLANG_EXECUTABLE);
    candidates.emplace_back("/usr/lib/llvm-" CLANG_VERSION_MAJOR_STRING "/bin/clang++");
    if (auto found = llvm::sys::findProgramByName("clang++-" CLANG_VERSION_MAJOR_STRING)) candidates.emplace_back(*found);
    std::string tried;
    for (const fs::path &c : candidates) {
        std::error_code ec;
        // Canonical: the driver derives the resource dir (<bin>/../lib/clang/N)
        // from this path's directory without resolving links itself.
        fs::path real = fs::canonical(c, ec);
        if (!ec && fs::is_regular_file(real, ec)) return real;
        tried += (tried.empty() ? "" : ", ") + c.string();
    }
    throw BackendError("no clang++ " CLANG_VERSION_STRING " found (tried " + tried +
                       "; set WEFT_CLANG to its path): the in-process compiler needs its resource directory");
}
} // namespace

const fs::path &clang_executable() {
    static const fs::path path = find_clang(); // a throw leaves it unset: retried next call
    return path;
}

namespace cpu {
void initialize_native_target() {
    static std::once_flag once;
    std::call_once(once, [] {
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
        llvm::InitializeNativeTargetAsmParser();
    });
}
} // namespace cpu

namespace {
std::string compute_toolchain_identity(const CpuCompileOptions &options) {
    // The flags are those the compiler gets, minus paths and defines.
    CpuCompileOptions flags_only;
    flags_only.opt_level = options.opt_level;
    flags_only.fast_math = options.fast_math;
    flags_only.native_cpu = options.native_cpu;
    // The flags that shape the code, as driver_arguments passes them; not
    // the driver's path, which a warm load's content key would otherwise
    // look up on disk first thing (a tenth of the load).
    std::vector<std::string> args;
    cpu::append_code_flags(args, flags_only, cpu::InputKind::Source);
    std::string id = "clang " CLANG_VERSION_STRING " (" + clang::getClangFullVersion() + ") " +
                     llvm::sys::getDefaultTargetTriple();
    for (const std::string &a : args) id += ' ' + a;
    if (options.native_cpu) {
        id += " cpu=" + llvm::sys::getHostCPUName().str() + " features=";
        std::vector<std::string> features;
        for (const auto &f : llvm::sys::getHostCPUFeatures())
            features.push_back((f.getValue() ? "+" : "-") + f.getKey().str());
        std::sort(features.begin(), features.end());
        for (std::size_t i = 0; i < features.size(); ++i) id += (i ? "," : "") + features[i];
    }
    return id;
}
} // namespace

std::string toolchain_identity(const CpuCompileOptions &options) {
    // Memoized per flag set: composing it (the driver's arguments, Clang's
    // version, the host CPU's features) was a tenth of a warm load, whose
    // content key needs it first thing (issue 20). CpuJit::prepare computes
    // the default flags' on its thread while the Host is constructed.
    // Composed outside the lock: a warm load must not wait for CpuJit::prepare's
    // thread to finish composing it when that thread was scheduled late (seen
    // at 0.8 ms on a 2-vCPU VM). Two threads composing the same identity agree.
    static std::mutex mutex;
    static std::map<std::tuple<int, bool, bool>, std::string> known;
    const auto key = std::make_tuple(options.opt_level, options.fast_math, options.native_cpu);
    {
        const std::lock_guard<std::mutex> lock(mutex);
        if (const auto it = known.find(key); it != known.end()) return it->second;
    }
    std::string id = compute_toolchain_identity(options);
    const std::lock_guard<std::mutex> lock(mutex);
    return known.emplace(key, std::move(id)).first->second;
}

} // namespace weft::backend
