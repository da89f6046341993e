// Kernel modules compiled and loaded on the CPU: the front end checks the
// source, codegen emits C++, the in-process Clang/ORC backend compiles it (or
// the artifact cache supplies the object), and kernels launch across all cores.
#pragma once

#include "weft/build/build_options.hpp"
#include "weft/runtime/array.hpp"
#include "weft/runtime/kernel_arg.hpp"
#include "weft/runtime/launch.hpp"
#include "weft/runtime/stream.hpp"
#include "weft/support/error.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

/// How a kernel module is built. Everything here that changes the binary is
/// part of the module hash.
struct ModuleLoadOptions {
    /// The plugins whose build options the module uses, in order. Empty: the
    /// plugins that own the external builtins and native types it references.
    std::optional<std::vector<std::string>> plugins;
    /// The module's own build options, applied before building (the one
    /// invalidation point); nullopt keeps what the module has.
    std::optional<ModuleBuildOptions> build_options;
    int opt_level = 2;        // -O0..-O3
    bool fast_math = false;
    bool native_cpu = false;  // -march=native (the host CPU's features enter the hash)
    bool use_pch = true;      // a precompiled header of weft's runtime headers, built once per flags
    // CUDA targets only (both enter the hash through the NVRTC options):
    bool fmad = true;         // false: no mul + add contraction into fma (--fmad=false), for bitwise CPU agreement
    bool line_info = false;   // -lineinfo: .loc/.file in the PTX, so profilers map SASS to the kernel's .py lines
};

class CompiledModule;

/// A kernel of a loaded module. Cheap to copy; valid while its module is loaded.
class Kernel {
public:
    const std::string &name() const;
    /// The parameters in order, with their types (a struct parameter's Type
    /// carries its layout: pass its bytes with KernelArg::value).
    const std::vector<KernelParam> &params() const;
    /// Runs the kernel over `dim` (1 to 4 dimensions) with `args` in parameter
    /// order. Argument types are checked against the signature (a wrong dtype,
    /// ndim or native type names the parameter and both types). Throws
    /// LaunchError when an expect_* in the kernel failed during this launch.
    void launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args) const;
    /// The same on a CPU `stream` (nullptr: synchronous, as above): the
    /// arguments are checked and packed now (errors throw here), the kernel
    /// runs after the stream's earlier work, and this returns at once. The
    /// packed arguments, and through them every Array argument's storage,
    /// stay alive until the kernel has run (see weft/runtime/stream.hpp);
    /// failed expect_* checks reach Stream::synchronize() as LaunchError.
    void launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args, Stream *stream) const;

    struct Impl;

private:
    friend class CompiledModule;
    std::shared_ptr<const Impl> impl_;
};

/// A failed launch: arguments that do not fit, or failed expectations.
class LaunchError : public UserError {
public:
    using UserError::UserError;
};

class CompiledModule {
public:
    ~CompiledModule();
    CompiledModule(const CompiledModule &) = delete;
    CompiledModule &operator=(const CompiledModule &) = delete;

    const std::string &name() const;
    const std::string &hash() const;   // full-width module hash
    bool from_cache() const;           // the object came from the artifact cache
    double load_ms() const;            // check + codegen + (compile | cache read) + JIT load
    const std::filesystem::path &artifact_path() const;         // the object file in the cache
    const std::filesystem::path &generated_source_path() const; // for reference in diagnostics
    std::vector<std::string> kernel_names() const;
    /// Throws UserError naming the module's kernels when there is no such kernel.
    Kernel kernel(std::string_view name) const;

    struct Impl;
    explicit CompiledModule(std::unique_ptr<Impl> impl);

private:
    std::unique_ptr<Impl> impl_;
};

} // namespace weft
