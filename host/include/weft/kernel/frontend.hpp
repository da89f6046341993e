// The kernel-language front end: source text -> parsed, type-checked module
// bound to a registry (typed IR). No Python at run time.
#pragma once

#include "weft/kernel/diagnostics.hpp"
#include "weft/kernel/ir.hpp"
#include "weft/registry/registry.hpp"

#include <string>
#include <vector>

namespace weft::kernel {

struct FrontendResult {
    ir::Module module;
    std::vector<Diagnostic> diagnostics; // errors and warnings, in report order
    std::string formatted;               // every diagnostic as file:line:col, source line and caret
    std::size_t dropped_errors = 0;      // errors past the error limit: counted, not kept
    bool ok() const;
};

struct FrontendOptions {
    std::size_t error_limit = 50; // 0: no limit
};

/// Parses and checks one module. Bad input never throws: see result.ok().
FrontendResult check_module(const SourceFile &file, const Registry &registry, const FrontendOptions &options = {});

/// The same, throwing KernelSourceError (with every diagnostic) on errors.
ir::Module compile_module(const SourceFile &file, const Registry &registry, const FrontendOptions &options = {});

/// Reads a file and checks it; the module is named after the file's stem.
FrontendResult check_file(const std::string &path, const Registry &registry, const FrontendOptions &options = {});

} // namespace weft::kernel
