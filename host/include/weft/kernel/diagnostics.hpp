// Diagnostics for kernel source: file:line:col, the source line and a caret.
// Independent errors are collected (up to a limit) rather than stopping at
// the first.
#pragma once

#include "weft/support/error.hpp"
#include "weft/kernel/source.hpp"

#include <string>
#include <vector>

namespace weft::kernel {

struct Diagnostic {
    enum class Severity { Error, Warning, Note };
    Severity severity = Severity::Error;
    SourceLocation location;
    std::string message;
};

class DiagnosticEngine {
public:
    explicit DiagnosticEngine(const SourceFile &file, std::size_t limit = 50) : file_(&file), limit_(limit) {}

    void error(SourceLocation at, std::string message);
    void warning(SourceLocation at, std::string message);
    void note(SourceLocation at, std::string message);

    bool has_errors() const { return errors_ > 0; }
    std::size_t error_count() const { return errors_; }
    /// True once `limit` errors were reported: further errors are dropped.
    bool at_limit() const { return errors_ >= limit_; }
    const std::vector<Diagnostic> &diagnostics() const { return diagnostics_; }
    const SourceFile &file() const { return *file_; }

    /// "file:line:col: error: message\n    source line\n    ^" for one diagnostic.
    std::string format(const Diagnostic &d) const;
    /// Every diagnostic, formatted, in report order.
    std::string format_all() const;

private:
    void add(Diagnostic::Severity severity, SourceLocation at, std::string message);
    const SourceFile *file_;
    std::size_t limit_;
    std::size_t errors_ = 0;
    std::vector<Diagnostic> diagnostics_;
};

/// Thrown by the front end's entry points when a module has errors; carries
/// every formatted diagnostic.
class KernelSourceError : public UserError {
public:
    KernelSourceError(std::string formatted, std::vector<Diagnostic> diagnostics)
        : UserError(std::move(formatted)), diagnostics_(std::move(diagnostics)) {}
    const std::vector<Diagnostic> &diagnostics() const { return diagnostics_; }

private:
    std::vector<Diagnostic> diagnostics_;
};

} // namespace weft::kernel
