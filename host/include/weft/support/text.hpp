// Text from outside weft (kernel sources, manifests, strings a plugin hands
// over) is untrusted: these helpers decide whether it is UTF-8 and how its
// bytes may be shown in a message without reaching the user's terminal raw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace weft {

/// Length of the well-formed UTF-8 sequence at `pos` (1 to 4), or 0 when the
/// bytes there are not one: a stray continuation byte, a truncated sequence,
/// an overlong encoding, a surrogate (U+D800..U+DFFF) or a value past U+10FFFF
/// (Unicode 15, table 3-7). `code_point`, when given, receives the value.
std::size_t utf8_sequence_length(std::string_view text, std::size_t pos, std::uint32_t *code_point = nullptr);

/// Offset of the first byte that does not start a well-formed sequence, or
/// std::string_view::npos when all of `text` is valid UTF-8.
std::size_t find_invalid_utf8(std::string_view text);

/// `text` with every byte a terminal would act on or could not show written
/// as `\xNN`: C0 controls other than tab, DEL, C1 controls, bidirectional
/// overrides and isolates (U+202A..U+202E, U+2066..U+2069, written `\u202E`)
/// and bytes that are not valid UTF-8. A backslash stays as it is.
std::string escape_for_display(std::string_view text);

/// escape_for_display, except that line breaks stay: for whole messages and
/// reports (several lines) on their way to a terminal. Every message that may
/// echo external text (manifests, signatures, allow-lists, cache entries,
/// servers) reaches stdout or stderr through it: the weft tool's output and
/// the default log sink.
std::string escape_for_terminal(std::string_view text);

/// A compiler diagnostic as both backends print it: "file:line:col: severity:
/// message" ("file:line: ..." without a column, "severity: message" without a
/// file).
std::string format_compiler_diagnostic(std::string_view file, unsigned line, unsigned column,
                                       std::string_view severity, std::string_view message);

} // namespace weft
