#include "weft/support/text.hpp"

#include <cstdint>
#include <cstring>

namespace weft {

namespace {

constexpr char hex_digits[] = "0123456789ABCDEF";

void append_hex_byte(std::string &out, unsigned char c) {
    out += "\\x";
    out += hex_digits[c >> 4];
    out += hex_digits[c & 0xF];
}

bool is_bidi_control(std::uint32_t cp) { return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069); }

} // namespace

std::size_t utf8_sequence_length(std::string_view text, std::size_t pos, std::uint32_t *code_point) {
    if (pos >= text.size()) return 0;
    const auto lead = static_cast<unsigned char>(text[pos]);
    if (lead < 0x80) {
        if (code_point) *code_point = lead;
        return 1;
    }
    // The second byte's range depends on the lead: that is what rules out
    // overlong forms (E0 80..9F, F0 80..8F), surrogates (ED A0..BF) and values
    // past U+10FFFF (F4 90..BF) without decoding first.
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    std::uint32_t cp = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        len = 2;
        cp = lead & 0x1Fu;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        len = 3;
        cp = lead & 0x0Fu;
        if (lead == 0xE0) lo = 0xA0;
        if (lead == 0xED) hi = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        len = 4;
        cp = lead & 0x07u;
        if (lead == 0xF0) lo = 0x90;
        if (lead == 0xF4) hi = 0x8F;
    } else {
        return 0; // a continuation byte, C0/C1 (always overlong) or F5..FF
    }
    if (text.size() - pos < len) return 0;
    for (std::size_t i = 1; i < len; ++i) {
        const auto b = static_cast<unsigned char>(text[pos + i]);
        if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF)) return 0;
        cp = (cp << 6) | (b & 0x3Fu);
    }
    if (code_point) *code_point = cp;
    return len;
}

std::size_t find_invalid_utf8(std::string_view text) {
    std::size_t i = 0;
    // Eight bytes at a time while they are all ASCII: the names and types a
    // plugin passes for every builtin are checked here (bench/plugin_load).
    constexpr std::uint64_t high_bits = 0x8080808080808080ULL;
    for (std::uint64_t word; i + sizeof word <= text.size(); i += sizeof word) {
        std::memcpy(&word, text.data() + i, sizeof word);
        if (word & high_bits) break;
    }
    while (i < text.size()) {
        // ASCII, nearly all of what plugins and sources pass, decoded inline:
        // a call per byte was most of the check's cost (bench/plugin_load).
        if (static_cast<unsigned char>(text[i]) < 0x80) {
            ++i;
            continue;
        }
        const std::size_t n = utf8_sequence_length(text, i);
        if (n == 0) return i;
        i += n;
    }
    return std::string_view::npos;
}

namespace {
std::string escape(std::string_view text, bool keep_newlines) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        std::uint32_t cp = 0;
        const std::size_t n = utf8_sequence_length(text, i, &cp);
        if (n == 0 || (n == 1 && ((cp < 0x20 && cp != '\t' && !(keep_newlines && cp == '\n')) || cp == 0x7F))) {
            append_hex_byte(out, static_cast<unsigned char>(text[i]));
            ++i;
            continue;
        }
        if ((cp >= 0x80 && cp <= 0x9F) || is_bidi_control(cp)) {
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4) out += hex_digits[(cp >> shift) & 0xF];
        } else {
            out.append(text.substr(i, n));
        }
        i += n;
    }
    return out;
}
} // namespace

std::string escape_for_display(std::string_view text) { return escape(text, false); }

std::string escape_for_terminal(std::string_view text) { return escape(text, true); }

std::string format_compiler_diagnostic(std::string_view file, unsigned line, unsigned column,
                                       std::string_view severity, std::string_view message) {
    std::string out;
    if (!file.empty()) {
        out += file;
        if (line != 0) {
            out += ':' + std::to_string(line);
            if (column != 0) out += ':' + std::to_string(column);
        }
        out += ": ";
    }
    out += severity;
    out += ": ";
    out += message;
    return out;
}

} // namespace weft
