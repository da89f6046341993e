#include "weft/build/target.hpp"

#include "weft/support/error.hpp"

#include <charconv>

namespace weft {

std::string Target::str() const {
    if (kind == Kind::Cpu) return output == Output::SharedObject ? "cpu-so" : output == Output::Unit ? "cpu-unit" : "cpu";
    const std::string a = std::to_string(arch);
    return output == Output::Ptx ? "cuda-compute_" + a + "-ptx" : "cuda-sm_" + a + "-cubin";
}

Target Target::parse(std::string_view text) {
    if (text == "cpu") return cpu();
    if (text == "cpu-so") return cpu_shared_object();
    if (text == "cpu-unit") return cpu_unit();
    auto number = [&](std::string_view digits) {
        int v = 0;
        auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
        if (ec != std::errc{} || p != digits.data() + digits.size() || v <= 0)
            throw UserError("invalid target '" + std::string(text) + "'");
        return v;
    };
    struct Form {
        std::string_view prefix, suffix;
        Output output;
    };
    for (const Form &f : {Form{"cuda-compute_", "-ptx", Output::Ptx}, Form{"cuda-sm_", "-cubin", Output::Cubin}}) {
        const std::string_view p = f.prefix, s = f.suffix;
        if (text.size() > p.size() + s.size() && text.substr(0, p.size()) == p &&
            text.substr(text.size() - s.size()) == s) {
            Target t{Kind::Cuda, number(text.substr(p.size(), text.size() - p.size() - s.size())), f.output};
            return t;
        }
    }
    throw UserError("invalid target '" + std::string(text) +
                    "' (expected cpu, cpu-so, cpu-unit, cuda-compute_<arch>-ptx or cuda-sm_<arch>-cubin)");
}

} // namespace weft
