// Warp's module="unique" kernels: each compiles as a module of its own, with
// its own options, hash, compile and cache entry.
#pragma once

#include "weft/kernel/ir.hpp"

#include <string>
#include <vector>

namespace weft::kernel {

/// A module a file compiles to.
struct SplitModule {
    /// The name it is hashed, compiled and cached as: the file's module's, or
    /// "<module>.<kernel>". `ir.name` stays the file's module's: the generated
    /// text and its run-time messages name the file (`<module>.py`).
    std::string name;
    ir::Module ir;
};

/// The modules a checked module compiles to. Without module="unique"
/// kernels: the module itself. With them: the file's module holding every
/// other kernel (left out when there is none), then one module per unique
/// kernel (every instance of a generic one), named "<module>.<kernel>", with
/// the functions it reaches, the file's structs and constants, and the
/// kernel's own module options. The name enters the module hash, so two
/// unique kernels of equal code never share one.
std::vector<SplitModule> split_unique_kernels(ir::Module module);

} // namespace weft::kernel
