// Kernel source text and positions in it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace weft::kernel {

/// 1-based line and column (columns count bytes; tabs count as one).
struct SourceLocation {
    std::uint32_t line = 0;
    std::uint32_t column = 0;
    bool valid() const { return line != 0; }
};

/// Lines end at LF, CRLF or a lone CR, as in Python.
class SourceFile {
public:
    SourceFile(std::string name, std::string text);
    const std::string &name() const { return name_; }
    const std::string &text() const { return text_; }
    /// The text of line `line` (1-based) without its newline; "" past the end.
    std::string_view line(std::uint32_t line) const;

private:
    std::string name_;
    std::string text_;
    std::vector<std::size_t> line_starts_;
};

/// Kernel sources are text a person writes; anything larger is refused
/// rather than read into memory.
inline constexpr std::uintmax_t max_source_file_bytes = std::uintmax_t{16} << 20;

/// The text of a kernel source file. Throws UserError naming the path when it
/// is not a regular file (a directory, a FIFO, /dev/zero), is larger than
/// max_source_file_bytes or cannot be read.
std::string read_source_text(const std::filesystem::path &path);

} // namespace weft::kernel
