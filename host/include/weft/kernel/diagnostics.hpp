// Diagnostics for kernel source: file:line:col, the source line and a caret.
// Independent errors are collected (up to a limit) rather than stopping at
// the first. Source text is untrusted: formatting escapes the bytes a terminal
// would act on and bounds what one diagnostic and one report can print.
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
    /// Lines printed under the message, one each (a failed call's candidates).
    /// Apart so that only these breaks are real: a newline inside the message
    /// or a detail (quoted from a string literal) is escaped like any control
    /// byte, and no text from the source can start a line of the report.
    std::vector<std::string> details;

    /// The message, then each detail on a line of its own indented by four
    /// spaces: unescaped plain text, as JSON reports carry it.
    std::string text() const;
};

class DiagnosticEngine {
public:
    /// `limit` errors are kept; 0 keeps every error.
    explicit DiagnosticEngine(const SourceFile &file, std::size_t limit = 50) : file_(&file), limit_(limit) {}

    void error(SourceLocation at, std::string message, std::vector<std::string> details = {});
    void warning(SourceLocation at, std::string message);
    void note(SourceLocation at, std::string message);

    bool has_errors() const { return errors_ > 0; }
    std::size_t error_count() const { return errors_ + repeats_; }
    /// True once `limit` errors were reported: further errors are dropped.
    bool at_limit() const { return limit_ != 0 && errors_ >= limit_; }
    /// Errors reported after the limit was reached (dropped, but counted).
    std::size_t dropped_errors() const { return dropped_; }
    const std::vector<Diagnostic> &diagnostics() const { return diagnostics_; }
    const SourceFile &file() const { return *file_; }

    /// "file:line:col: error: message\n    detail...\n    source line\n    ^" for
    /// one diagnostic. Control bytes and bytes that are not UTF-8 in the
    /// message, the details and the line are shown as \xNN; a long line is
    /// shown as a window around the column.
    std::string format(const Diagnostic &d) const;
    /// Every diagnostic, formatted, in report order; past max_report_bytes a
    /// "N more errors not shown" line instead of the rest, and a last line
    /// when the error limit stopped the check.
    std::string format_all() const;

    /// Bytes of source line shown around the column of one diagnostic.
    static constexpr std::size_t max_line_bytes = 160;
    /// Bytes of message and details shown for one diagnostic.
    static constexpr std::size_t max_message_bytes = 1000;
    /// Beyond this, format_all() summarizes the remaining diagnostics in one line.
    static constexpr std::size_t max_report_bytes = 256 * 1024;

private:
    void add(Diagnostic::Severity severity, SourceLocation at, std::string message,
             std::vector<std::string> details = {});
    const SourceFile *file_;
    std::size_t limit_;
    std::size_t errors_ = 0;
    std::size_t dropped_ = 0;
    std::size_t repeats_ = 0; // errors already reported word for word at the same place
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
