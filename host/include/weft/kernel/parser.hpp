// Lexer and parser for kernel modules. Syntax errors and unsupported Python
// constructs are reported to the DiagnosticEngine; parsing recovers at the
// next statement so that independent errors are all reported.
#pragma once

#include "weft/kernel/ast.hpp"
#include "weft/kernel/diagnostics.hpp"

namespace weft::kernel {

/// Parses a whole module. Never throws for bad input: check diags.has_errors().
ast::Module parse_module(const SourceFile &file, DiagnosticEngine &diags);

} // namespace weft::kernel
