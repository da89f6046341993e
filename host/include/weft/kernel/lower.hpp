// Lowering the typed IR to the form codegen consumes, checking that form, and
// printing either form (for `weft check --dump-ir` and golden tests).
//
// The lowered form is a replayable forward pass with named temporaries, the
// shape Warp's adjoint codegen works on: each statement computes one
// operation into a local or temporary from atoms, so a reverse pass can walk
// the statements backwards and find every intermediate value by name.
#pragma once

#include "weft/kernel/ir.hpp"

#include <string>
#include <vector>

namespace weft::kernel {

/// Lowers every function of a checked module in place (see ir.hpp for the
/// rules of the lowered form). Idempotent: a lowered module is left as it is.
void lower(ir::Module &module);

/// The lowered form's invariants, checked: an empty list means it holds.
/// Each problem names the function and the statement's line:column.
std::vector<std::string> verify_lowered(const ir::Module &module);

/// A readable, stable text form of the module (typed or lowered).
std::string print_ir(const ir::Module &module);

} // namespace weft::kernel
