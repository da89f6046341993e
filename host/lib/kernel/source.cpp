#include "weft/kernel/source.hpp"

#include "weft/support/file.hpp"

#include <utility>

namespace weft::kernel {

SourceFile::SourceFile(std::string name, std::string text) : name_(std::move(name)), text_(std::move(text)) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text_.size(); ++i) {
        if (text_[i] == '\r' && i + 1 < text_.size() && text_[i + 1] == '\n') ++i;
        if (text_[i] == '\n' || text_[i] == '\r') line_starts_.push_back(i + 1);
    }
}

std::string_view SourceFile::line(std::uint32_t line) const {
    if (line == 0 || line > line_starts_.size()) return {};
    const std::size_t begin = line_starts_[line - 1];
    std::size_t end = line < line_starts_.size() ? line_starts_[line] : text_.size();
    // Without its terminator: LF, CR or CRLF (a CR left in would move the caret).
    if (end > begin && line < line_starts_.size() && text_[end - 1] == '\n') --end;
    if (end > begin && line < line_starts_.size() && text_[end - 1] == '\r') --end;
    return std::string_view(text_).substr(begin, end - begin);
}

std::string read_source_text(const std::filesystem::path &path) {
    return read_input_file(path, max_source_file_bytes, "kernel source");
}

} // namespace weft::kernel
