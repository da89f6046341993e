#include "weft/support/log.hpp"

#include "weft/support/text.hpp"
#include "weft/support/environment.hpp"

#include <cstdlib>
#include <cstdio>

namespace weft {

std::string_view log_level_name(LogLevel level) {
    switch (level) {
    case LogLevel::Debug: return "debug";
    case LogLevel::Info: return "info";
    case LogLevel::Warning: return "warning";
    case LogLevel::Error: return "error";
    }
    return "?";
}

Logger::Logger(LogSink sink, std::string categories) : sink_(std::move(sink)), categories_(std::move(categories)) {
    if (categories_.empty())
        if (const char *env = environment_override("WEFT_DEBUG")) categories_ = env; // not when setuid
}

bool Logger::enabled(LogLevel level, std::string_view category) const {
    if (level >= LogLevel::Warning) return true;
    if (categories_ == "all" || categories_ == "1") return true;
    std::string_view rest = categories_;
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        if (rest.substr(0, comma) == category) return true;
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return false;
}

void Logger::log(LogLevel level, std::string_view category, std::string_view message) const {
    if (!enabled(level, category)) return;
    if (sink_) {
        sink_(level, category, message);
        return;
    }
    // Messages quote files, manifests and servers: nothing of theirs drives the terminal.
    const std::string shown = escape_for_terminal(message);
    std::fprintf(stderr, "weft %.*s [%.*s]: %.*s\n", static_cast<int>(log_level_name(level).size()),
                 log_level_name(level).data(), static_cast<int>(category.size()), category.data(),
                 static_cast<int>(shown.size()), shown.data());
}

} // namespace weft
