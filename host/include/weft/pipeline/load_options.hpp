// How a kernel module is built: the options an application passes with a load
// or an AOT build. Everything here that changes the binary enters the module
// hash; nothing here names a path the hash would depend on.
#pragma once

#include "weft/build/build_options.hpp"
#include "weft/support/device.hpp"

#include <optional>
#include <string>
#include <vector>

namespace weft {

/// Which code of a module: the kernels as launched, or their backward pass
/// (reverse-mode automatic differentiation), built separately and, for loaded
/// modules, only when a gradient is first needed. The pass is part of the
/// module hash.
enum class Pass { Forward, Backward };

struct ModuleLoadOptions {
    /// Where the module is loaded (Host::load_module): the CPU, or a CUDA
    /// device (a CUBIN for its architecture, else PTX). AOT builds take
    /// targets instead.
    Device device = Device::cpu();
    /// The module's name: its identity in a host and in the cache (with its
    /// source text and options). Empty: the file's stem ("<name>" for source
    /// text). Two different files cannot claim one name in one host.
    std::string name;
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
    /// Debug mode (Warp's mode="debug"): every array access is bounds-checked;
    /// a violation makes the launch throw LaunchError naming kernel, file:line,
    /// index and shape. In the hash; release code stays unchecked.
    bool debug = false;
    /// Whether the module's kernels can be differentiated (weft::Tape): false
    /// refuses to build a backward pass, as Warp's enable_backward module
    /// option. The backward pass is built only when a gradient is first
    /// needed, so a module never differentiated pays nothing either way.
    bool enable_backward = true;
    /// Each external builtin's native function must have exactly the registered
    /// signature (its address taken as that function-pointer type): a compile
    /// error naming plugin and builtin instead of a silent conversion (a C++
    /// function taking int registered as int64). `weft plugin check --compile`
    /// sets it; in the hash.
    bool check_native_signatures = false;
    // CUDA targets only (both enter the hash through the NVRTC options):
    bool fmad = true;         // false: no mul + add contraction into fma (--fmad=false), for bitwise CPU agreement
    bool line_info = false;   // -lineinfo: .loc/.file in the PTX, so profilers map SASS to the kernel's .py lines
};

} // namespace weft
