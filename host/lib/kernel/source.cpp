#include "weft/kernel/source.hpp"

#include <utility>

namespace weft::kernel {

SourceFile::SourceFile(std::string name, std::string text) : name_(std::move(name)), text_(std::move(text)) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text_.size(); ++i)
        if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

std::string_view SourceFile::line(std::uint32_t line) const {
    if (line == 0 || line > line_starts_.size()) return {};
    const std::size_t begin = line_starts_[line - 1];
    std::size_t end = line < line_starts_.size() ? line_starts_[line] - 1 : text_.size();
    // A CRLF file's lines should print without the CR, or the caret line looks shifted.
    if (end > begin && text_[end - 1] == '\r' && end < text_.size()) --end;
    return std::string_view(text_).substr(begin, end - begin);
}

} // namespace weft::kernel
