#include "weft/kernel/diagnostics.hpp"

#include "weft/support/text.hpp"

#include <algorithm>
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

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

/// `text` escaped, cut at `limit` bytes on a character boundary.
std::string shown_message(std::string_view text, std::size_t limit) {
    std::string out = escape_for_display(text);
    if (out.size() <= limit) return out;
    std::size_t end = limit;
    while (end > 0 && is_continuation(out[end])) --end;
    out.resize(end);
    return out + "...";
}

/// `text` as shown_message() shows it within `budget`, which it uses up.
std::string take_message(std::string_view text, std::size_t &budget) {
    std::string out = shown_message(text, budget);
    budget -= std::min(budget, out.size());
    return out;
}

/// The source line as printed (escaped, windowed) and the run of blanks that
/// puts a caret under byte `target` of `src`.
struct ShownLine {
    std::string text;
    std::string caret_indent;
};

ShownLine show_line(std::string_view src, std::size_t target) {
    ShownLine out;
    std::size_t begin = 0, end = src.size();
    if (src.size() > DiagnosticEngine::max_line_bytes) {
        const std::size_t before = DiagnosticEngine::max_line_bytes / 2;
        begin = target > before ? std::min(target - before, src.size()) : 0;
        while (begin > 0 && begin < src.size() && is_continuation(src[begin])) --begin;
        end = std::min(src.size(), begin + DiagnosticEngine::max_line_bytes);
        while (end < src.size() && end > begin && is_continuation(src[end])) --end;
    }
    if (begin > 0) {
        out.text = "...";
        out.caret_indent = "   ";
    }
    for (std::size_t i = begin; i < end;) {
        const std::size_t n = std::max<std::size_t>(1, utf8_sequence_length(src, i));
        const std::string_view unit = src.substr(i, n);
        const std::string shown = escape_for_display(unit);
        out.text += shown;
        if (i < target) {
            // Tabs are copied so the caret lines up whatever the terminal's tab
            // width; a multibyte character is one column, an escape its length.
            if (unit == "\t")
                out.caret_indent += '\t';
            else
                out.caret_indent.append(shown == unit && n > 1 ? 1 : shown.size(), ' ');
        }
        i += n;
    }
    if (end < src.size()) out.text += "...";
    if (target > end) out.caret_indent.append(std::min(target - end, DiagnosticEngine::max_line_bytes), ' ');
    return out;
}

} // namespace

std::string Diagnostic::text() const {
    std::string out = message;
    for (const std::string &line : details) {
        out += "\n    ";
        out += line;
    }
    return out;
}

void DiagnosticEngine::error(SourceLocation at, std::string message, std::vector<std::string> details) {
    add(Diagnostic::Severity::Error, at, std::move(message), std::move(details));
}

void DiagnosticEngine::warning(SourceLocation at, std::string message) {
    add(Diagnostic::Severity::Warning, at, std::move(message));
}

void DiagnosticEngine::note(SourceLocation at, std::string message) {
    add(Diagnostic::Severity::Note, at, std::move(message));
}

void DiagnosticEngine::add(Diagnostic::Severity severity, SourceLocation at, std::string message,
                           std::vector<std::string> details) {
    // A generic kernel or function checked once per instance repeats its
    // errors word for word: one report each. A repeat still counts for
    // error_count(), so a caller sees that its check failed, but not
    // towards the limit.
    for (const Diagnostic &d : diagnostics_)
        if (d.severity == severity && d.location.line == at.line && d.location.column == at.column && d.message == message) {
            if (severity == Diagnostic::Severity::Error) ++repeats_;
            return;
        }
    if (severity == Diagnostic::Severity::Error) {
        if (at_limit()) {
            ++dropped_;
            return;
        }
        ++errors_;
    }
    diagnostics_.push_back(Diagnostic{severity, at, std::move(message), std::move(details)});
}

std::string DiagnosticEngine::format(const Diagnostic &d) const {
    std::string out = escape_for_display(file_->name());
    if (d.location.valid()) {
        out += ':' + std::to_string(d.location.line) + ':' + std::to_string(d.location.column);
    }
    out += ": ";
    out += severity_word(d.severity);
    out += ": ";
    std::size_t budget = max_message_bytes;
    out += take_message(d.message, budget);
    for (const std::string &line : d.details) {
        out += "\n    ";
        if (budget == 0) {
            out += "...";
            break;
        }
        out += take_message(line, budget);
    }
    if (!d.location.valid()) return out;

    const ShownLine line = show_line(file_->line(d.location.line), d.location.column > 0 ? d.location.column - 1 : 0);
    out += "\n    ";
    out += line.text;
    out += "\n    ";
    out += line.caret_indent;
    out += '^';
    return out;
}

std::string DiagnosticEngine::format_all() const {
    std::string out;
    std::size_t unshown = 0, unshown_errors = 0;
    for (const Diagnostic &d : diagnostics_) {
        if (out.size() >= max_report_bytes) {
            ++unshown;
            if (d.severity == Diagnostic::Severity::Error) ++unshown_errors;
            continue;
        }
        out += format(d);
        out += '\n';
    }
    const std::string name = escape_for_display(file_->name());
    auto count = [](std::size_t n, const char *what) { return std::to_string(n) + " more " + what + (n == 1 ? "" : "s"); };
    if (unshown > 0)
        out += name + ": " + count(unshown, unshown_errors == unshown ? "error" : "diagnostic") +
               " not shown (the report is cut at " + std::to_string(max_report_bytes) + " bytes)\n";
    // The parser stops reading at the limit, so how many errors follow is unknown.
    if (at_limit())
        out += name + ": stopped at the error limit (" + std::to_string(limit_) + (limit_ == 1 ? " error)" : " errors)") +
               (dropped_ > 0 ? "; " + count(dropped_, "error") + " not shown" : std::string()) + "\n";
    return out;
}

} // namespace weft::kernel
