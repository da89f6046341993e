// The module hash: one function over everything that can change a module's
// binary. Every input is a required field; none is defaulted, so a caller
// cannot forget one (an empty runtime-header digest or toolchain identity is
// an internal error, not a silently weaker key).
#pragma once

#include "weft/build/build_options.hpp"
#include "weft/build/target.hpp"
#include "weft/registry/registry.hpp"

#include <map>
#include <string>
#include <vector>

namespace weft {

struct ModuleHashInputs {
    std::string generated_source;
    std::map<std::string, std::string> codegen_options; // e.g. {"opt", "3"}, {"fast_math", "1"}
    Target target;
    /// The contracts the module references (from the front end): external
    /// builtins by identity, native types by schema code. Core builtins are
    /// covered by weft's version and the runtime-header digest.
    std::vector<BuiltinOverload> referenced_builtins;
    std::vector<NativeTypeInfo> referenced_native_types;
    /// SHA-256 of weft's runtime headers as compiled into generated code.
    std::string runtime_header_digest;
    /// The compiler that turns the source into the artifact, e.g.
    /// "clang 19.1.7 x86_64-pc-linux-gnu -march=x86-64" or "nvrtc 13.0".
    std::string toolchain;
};

/// SHA-256 (hex, full width) over a canonical, versioned serialization of
/// the inputs, the resolved options and weft's own version.
/// Throws InternalError when runtime_header_digest or toolchain is empty.
std::string compute_module_hash(const ModuleHashInputs &inputs, const ResolvedBuildOptions &options);

/// SHA-256 (hex) of the resolved options alone, serialized as the module hash
/// serializes them, plus each preamble piece with its source: what a warm
/// load compares instead of hashing generated text (weft/pipeline/pipeline.hpp,
/// content keys).
std::string resolved_options_digest(const ResolvedBuildOptions &options);

} // namespace weft
