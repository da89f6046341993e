#include "weft/kernel/diagnostics.hpp"

#include <utility>

namespace weft::kernel {

namespace {

const char *severity_word(Diagnostic::Severity s) {
    switch (s) {
    case Diagnostic::Severity::Error: return "error";
    case Diagnostic::Severity::Warning: return "warning";
    case Diagnostic::Severity::Note: return "note";
    }
    return "error";
}

} // namespace

void DiagnosticEngine::error(SourceLocation at, std::string message) {
    add(Diagnostic::Severity::Error, at, std::move(message));
}

void DiagnosticEngine::warning(SourceLocation at, std::string message) {
    add(Diagnostic::Severity::Warning, at, std::move(message));
}

void DiagnosticEngine::note(SourceLocation at, std::string message) {
    add(Diagnostic::Severity::Note, at, std::move(message));
}

void DiagnosticEngine::add(Diagnostic::Severity severity, SourceLocation at, std::string message) {
    if (severity == Diagnostic::Severity::Error) {
        if (at_limit()) return;
        ++errors_;
    }
    diagnostics_.push_back(Diagnostic{severity, at, std::move(message)});
}

std::string DiagnosticEngine::format(const Diagnostic &d) const {
    std::string out = file_->name();
    if (d.location.valid()) {
        out += ':' + std::to_string(d.location.line) + ':' + std::to_string(d.location.column);
    }
    out += ": ";
    out += severity_word(d.severity);
    out += ": ";
    out += d.message;
    if (!d.location.valid()) return out;

    const std::string_view src = file_->line(d.location.line);
    out += "\n    ";
    out += src;
    out += "\n    ";
    // Copy tabs from the source line so the caret sits under the column
    // whatever tab width the reader's terminal uses.
    for (std::size_t i = 0; i + 1 < d.location.column; ++i) out += i < src.size() && src[i] == '\t' ? '\t' : ' ';
    out += '^';
    return out;
}

std::string DiagnosticEngine::format_all() const {
    std::string out;
    for (const Diagnostic &d : diagnostics_) {
        out += format(d);
        out += '\n';
    }
    return out;
}

} // namespace weft::kernel
