#include "weft/support/device.hpp"

#include "weft/support/error.hpp"

#include <charconv>

namespace weft {

std::string Device::name() const { return is_cpu() ? "cpu" : "cuda:" + std::to_string(ordinal); }

Device Device::parse(std::string_view name) {
    if (name == "cpu") return cpu();
    if (name == "cuda") return cuda(0);
    if (name.substr(0, 5) == "cuda:" && name.size() > 5 && name.size() <= 8) {
        int ordinal = 0;
        const char *end = name.data() + name.size();
        const auto [ptr, ec] = std::from_chars(name.data() + 5, end, ordinal);
        if (ec == std::errc() && ptr == end && ordinal >= 0) return cuda(ordinal);
    }
    throw UserError("unknown device '" + std::string(name) + "' (expected cpu, cuda or cuda:N)");
}

} // namespace weft
