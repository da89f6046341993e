// What a checked kernel module contributes to its module hash.
#pragma once

#include "weft/build/module_hash.hpp"
#include "weft/kernel/ir.hpp"

namespace weft::codegen {

/// The referenced contracts of a checked module (external builtins by
/// identity, native types by schema code). The code generator fills in the
/// generated source, codegen options, target, runtime-header digest and toolchain.
ModuleHashInputs contract_inputs(const kernel::ir::Module &module);

} // namespace weft::codegen
