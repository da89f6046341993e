// Clang diagnostics -> CpuDiagnostic (presumed locations, so #line maps
// errors back to the kernel file or plugin preamble) -> CompileError.
#include "internal.hpp"
#include "weft/support/file.hpp"
#include "weft/support/text.hpp"

#include <clang/Basic/DiagnosticFrontend.h>
#include <clang/Basic/SourceManager.h>
#include <llvm/ADT/SmallString.h>

#include <algorithm>

namespace weft::backend {

namespace {
const char *severity_name(CpuDiagnostic::Severity s) {
    switch (s) {
    case CpuDiagnostic::Severity::Note: return "note";
    case CpuDiagnostic::Severity::Warning: return "warning";
    case CpuDiagnostic::Severity::Error: break;
    }
    return "error";
}
} // namespace

std::string format_diagnostic(const CpuDiagnostic &d) {
    return format_compiler_diagnostic(d.file, d.line, d.column, severity_name(d.severity), d.message);
}

CompileError::CompileError(std::string message, std::vector<CpuDiagnostic> diagnostics, bool pch_rejected)
    : UserError(std::move(message)), diagnostics_(std::move(diagnostics)), pch_rejected_(pch_rejected) {}

namespace cpu {

void DiagnosticCollector::HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) {
    DiagnosticConsumer::HandleDiagnostic(level, info); // keeps NumErrors / NumWarnings
    // Every way a PCH can fail to load is a serialization diagnostic, except
    // the frontend's summary "unable to load PCH file".
    const unsigned id = info.getID();
    if (level >= clang::DiagnosticsEngine::Error &&
        ((id >= clang::diag::DIAG_START_SERIALIZATION && id < clang::diag::DIAG_START_LEX) ||
         id == clang::diag::err_fe_unable_to_load_pch))
        pch_problem_ = true;
    CpuDiagnostic d;
    switch (level) {
    case clang::DiagnosticsEngine::Ignored:
    case clang::DiagnosticsEngine::Remark: return;
    case clang::DiagnosticsEngine::Note: d.severity = CpuDiagnostic::Severity::Note; break;
    case clang::DiagnosticsEngine::Warning: d.severity = CpuDiagnostic::Severity::Warning; break;
    case clang::DiagnosticsEngine::Error:
    case clang::DiagnosticsEngine::Fatal: d.severity = CpuDiagnostic::Severity::Error; break;
    }
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    d.message.assign(text.begin(), text.end());
    if (info.getLocation().isValid() && info.hasSourceManager()) {
        const clang::SourceManager &sm = info.getSourceManager();
        const clang::PresumedLoc p = sm.getPresumedLoc(info.getLocation());
        if (p.isValid()) {
            d.file = p.getFilename();
            d.line = p.getLine();
            d.column = p.getColumn();
        }
    }
    const bool is_error = d.severity == CpuDiagnostic::Severity::Error;
    CpuDiagnostic at = d;
    diagnostics_.push_back(std::move(d));
    if (!is_error) return;
    for (const std::string &path : refused_) {
        if (diagnostics_.back().message.find("'" + path + "'") == std::string::npos) continue;
        at.severity = CpuDiagnostic::Severity::Note;
        at.message = "'" + path + "' is " + describe_file_kind(path) +
                     ", not a regular file: #include reads only regular files";
        diagnostics_.push_back(std::move(at));
        break;
    }
}

bool DiagnosticCollector::has_errors() const {
    return std::any_of(diagnostics_.begin(), diagnostics_.end(),
                       [](const CpuDiagnostic &d) { return d.severity == CpuDiagnostic::Severity::Error; });
}

std::vector<CpuDiagnostic> DiagnosticCollector::warnings() const {
    std::vector<CpuDiagnostic> out;
    bool in_warning = false; // notes belong to the diagnostic before them
    for (const CpuDiagnostic &d : diagnostics_) {
        if (d.severity != CpuDiagnostic::Severity::Note) in_warning = d.severity == CpuDiagnostic::Severity::Warning;
        if (in_warning) out.push_back(d);
    }
    return out;
}

CompileError make_compile_error(std::vector<CpuDiagnostic> diagnostics, std::string_view what, bool pch_rejected) {
    std::string message;
    std::size_t errors = 0, listed = 0;
    bool listing = false; // whether the notes that follow belong to a listed error
    for (const CpuDiagnostic &d : diagnostics) {
        if (d.severity == CpuDiagnostic::Severity::Error) {
            ++errors;
            listing = listed < max_listed_errors;
            if (listing) ++listed;
        } else if (d.severity == CpuDiagnostic::Severity::Warning) {
            listing = false;
        }
        if (!listing) continue;
        if (!message.empty()) message += '\n';
        message += format_diagnostic(d);
    }
    if (errors > listed)
        message += "\n... and " + std::to_string(errors - listed) + " more error" + (errors - listed == 1 ? "" : "s");
    if (message.empty()) message = "error: compiling " + std::string(what) + " failed (the compiler reported no error)";
    return CompileError(std::move(message), std::move(diagnostics), pch_rejected);
}

} // namespace cpu
} // namespace weft::backend
