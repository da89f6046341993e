// Kernel source text and positions in it.
#pragma once

#include <cstdint>
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

} // namespace weft::kernel
