// NVRTC's program log -> CudaDiagnostic -> CudaCompileError. Needs no NVRTC:
// the log is plain text (EDG's format):
//
//   kernel.py(12): error: identifier "y" is undefined      <- presumed location (#line)
//     extern "C" __global__ void k(float *x) { x[0] = y; }  <- the line, indented by 2
//                                                    ^      <- caret (tabs kept as tabs)
//             detected during instantiation of "..."        <- template context, if any
//                                                           <- blank
//   1 error detected in the compilation of "module.cu".     <- summary
#include "internal.hpp"
#include "weft/support/text.hpp"

#include <cctype>

namespace weft::backend {

namespace {

bool blank(std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; }

std::string_view trim(std::string_view s) {
    const std::size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) return {};
    const std::size_t e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// "error: msg", "catastrophic error: msg", "warning #177-D: msg", "remark #...: msg":
// sets d.error and d.message; false when `rest` is not a severity and a message.
bool parse_severity(std::string_view rest, CudaDiagnostic &d) {
    static constexpr std::pair<std::string_view, bool> severities[] = {
        {"catastrophic error", true}, {"error", true}, {"warning", false}, {"remark", false}, {"note", false}};
    for (const auto &[word, error] : severities) {
        if (!starts_with(rest, word)) continue;
        std::string_view tail = rest.substr(word.size());
        if (starts_with(tail, " #")) { // a diagnostic number: " #177-D"
            std::size_t i = 2;
            while (i < tail.size() && (std::isalnum(static_cast<unsigned char>(tail[i])) || tail[i] == '-')) ++i;
            tail = tail.substr(i);
        }
        if (!starts_with(tail, ": ")) return false;
        d.error = error;
        d.message = std::string(trim(tail.substr(2)));
        return true;
    }
    return false;
}

// "file(line): <severity>: message"; file may itself contain parentheses.
bool parse_located(std::string_view line, CudaDiagnostic &d) {
    for (std::size_t open = line.find('('); open != std::string_view::npos; open = line.find('(', open + 1)) {
        std::size_t i = open + 1;
        unsigned long number = 0;
        while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])) && number < 100000000)
            number = number * 10 + static_cast<unsigned long>(line[i++] - '0');
        if (i == open + 1 || line.substr(i, 3) != "): ") continue;
        if (!parse_severity(line.substr(i + 3), d)) continue;
        d.file = std::string(line.substr(0, open));
        d.line = static_cast<unsigned>(number);
        return true;
    }
    return false;
}

// A diagnostic without a location: "nvrtc: error: ...", "error: ...",
// "Command-line error: ..." (a bad -D), "ptxas error   : ...",
// "ptxas fatal   : ...", "ptxas warning : ...".
bool parse_unlocated(std::string_view line, CudaDiagnostic &d) {
    if (starts_with(line, "nvrtc: ")) line.remove_prefix(7);
    if (parse_severity(line, d)) return true;
    if (starts_with(line, "Command-line error: ")) {
        d.error = true;
        d.message = "command line: " + std::string(trim(line.substr(20)));
        return true;
    }
    if (starts_with(line, "ptxas ")) {
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) return false;
        const std::string_view kind = trim(line.substr(6, colon - 6));
        if (kind != "error" && kind != "fatal" && kind != "warning") return false; // not "info"
        d.error = kind != "warning";
        d.message = "ptxas: " + std::string(trim(line.substr(colon + 1)));
        return true;
    }
    return false;
}

// The 1-based column of the caret in `caret_line` ("  " + the source line's
// whitespace + '^'), or 0 when it is not such a line.
unsigned caret_column(std::string_view caret_line) {
    const std::size_t caret = caret_line.find('^');
    if (caret == std::string_view::npos || caret < 2 || caret_line.find('^', caret + 1) != std::string_view::npos)
        return 0;
    if (!blank(caret_line.substr(0, caret)) || !blank(caret_line.substr(caret + 1))) return 0;
    return static_cast<unsigned>(caret - 2 + 1);
}

bool summary_line(std::string_view line) {
    return line.find(" detected in the compilation of ") != std::string_view::npos ||
           starts_with(line, "Compilation terminated.") || starts_with(line, "Remark: The warnings can be suppressed");
}

} // namespace

std::string format_diagnostic(const CudaDiagnostic &d) {
    return format_compiler_diagnostic(d.file, d.line, d.column, d.error ? "error" : "warning", d.message);
}

std::vector<CudaDiagnostic> parse_nvrtc_log(std::string_view log) {
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; start <= log.size();) {
        std::size_t end = log.find('\n', start);
        if (end == std::string_view::npos) end = log.size();
        std::string_view line = log.substr(start, end - start);
        while (!line.empty() && (line.back() == '\r' || line.back() == '\0')) line.remove_suffix(1);
        lines.push_back(line);
        start = end + 1;
    }

    std::vector<CudaDiagnostic> out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string_view line = lines[i];
        if (blank(line) || summary_line(line)) continue;
        CudaDiagnostic d;
        if (parse_located(line, d)) {
            // The echoed source line and its caret.
            if (i + 2 < lines.size() && starts_with(lines[i + 1], "  ")) {
                if (const unsigned column = caret_column(lines[i + 2])) {
                    d.column = column;
                    i += 2;
                } else if (blank(lines[i + 2])) {
                    i += 2; // a line too long to echo in full: no caret
                }
            }
            // Context ("detected during instantiation of ..."), indented, up to a blank line.
            while (i + 1 < lines.size() && !blank(lines[i + 1]) &&
                   (lines[i + 1].front() == ' ' || lines[i + 1].front() == '\t')) {
                d.message += "\n  " + std::string(trim(lines[i + 1]));
                ++i;
            }
            out.push_back(std::move(d));
        } else if (parse_unlocated(trim(line), d)) {
            out.push_back(std::move(d));
        }
        // Anything else (stray text) is not a diagnostic.
    }
    return out;
}

CudaCompileError::CudaCompileError(std::string message, std::vector<CudaDiagnostic> diagnostics)
    : UserError(std::move(message)), diagnostics_(std::move(diagnostics)) {}

namespace cuda {

CudaCompileError make_compile_error(std::string_view log, std::string_view source_name) {
    std::vector<CudaDiagnostic> diagnostics = parse_nvrtc_log(log);
    std::string message;
    std::size_t errors = 0, listed = 0;
    for (const CudaDiagnostic &d : diagnostics) {
        if (!d.error) continue;
        ++errors;
        if (listed == max_listed_errors) continue;
        ++listed;
        if (!message.empty()) message += '\n';
        message += format_diagnostic(d);
    }
    if (errors > listed)
        message += "\n... and " + std::to_string(errors - listed) + " more error" + (errors - listed == 1 ? "" : "s");
    if (message.empty()) {
        // Nothing recognizable: quote the log (it never holds the whole source).
        std::string_view text = trim(log);
        if (text.size() > 4000) text = text.substr(0, 4000);
        message = "error: NVRTC failed to compile " + std::string(source_name) +
                  (text.empty() ? std::string(" (it reported no error)") : ":\n" + std::string(text));
    }
    return CudaCompileError(std::move(message), std::move(diagnostics));
}

} // namespace cuda
} // namespace weft::backend
