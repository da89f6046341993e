// weft::Device: where work runs and memory lives. A value every layer may
// name (build targets, loads, arrays, streams); what a device can do lives in
// the runtime layer (weft/runtime/device.hpp).
#pragma once

#include <string>
#include <string_view>

namespace weft {

/// The CPU, or CUDA device `ordinal`.
struct Device {
    enum class Kind { Cpu, Cuda };
    Kind kind = Kind::Cpu;
    int ordinal = 0;

    static Device cpu() { return {}; }
    static Device cuda(int ordinal) { return {Kind::Cuda, ordinal}; }
    /// "cpu", "cuda" (cuda:0) or "cuda:N"; UserError naming the text otherwise.
    static Device parse(std::string_view name);
    bool is_cpu() const { return kind == Kind::Cpu; }
    /// "cpu" or "cuda:N", as messages name devices.
    std::string name() const;
    bool operator==(const Device &) const = default;
};

} // namespace weft
