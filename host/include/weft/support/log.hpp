// Categorized diagnostics ("why was my plugin not loaded"). Warnings and
// errors always reach the sink; debug and info messages only for the
// categories named in WEFT_DEBUG ("loader,registry", or "all").
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace weft {

enum class LogLevel { Debug, Info, Warning, Error };

std::string_view log_level_name(LogLevel level);

/// Receives every message that passes the category filter.
using LogSink = std::function<void(LogLevel level, std::string_view category, std::string_view message)>;

class Logger {
public:
    /// `sink` empty means stderr. `categories` empty means read WEFT_DEBUG.
    explicit Logger(LogSink sink = {}, std::string categories = {});

    bool enabled(LogLevel level, std::string_view category) const;
    void log(LogLevel level, std::string_view category, std::string_view message) const;

private:
    LogSink sink_;
    std::string categories_;
};

} // namespace weft
