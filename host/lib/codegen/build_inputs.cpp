#include "weft/codegen/build_inputs.hpp"

namespace weft::codegen {

ModuleHashInputs contract_inputs(const kernel::ir::Module &module) {
    ModuleHashInputs in;
    in.referenced_builtins = module.references.builtins;
    in.referenced_native_types = module.references.native_types;
    return in;
}

} // namespace weft::codegen
