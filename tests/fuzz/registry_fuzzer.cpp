// libFuzzer target for the registry's inputs from plugins: a type name
// (parse_type) and a builtin registration built from the bytes. Any input
// must end in a type, a RegistrationError or a staged overload: no crash,
// no unbounded recursion, no leak.
#include "weft/registry/registry.hpp"
#include "weft/support/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    static weft::Registry *registry = [] {
        auto *r = new weft::Registry;
        weft::register_core_builtins(*r);
        return r;
    }();
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    try {
        (void)registry->parse_type(text);
    } catch (const weft::UserError &) { // RegistrationError: the input was refused, as it should be
    }
    // The same bytes as a registration: name, parameter type and result type, split at '|'.
    const std::size_t a = text.find('|'), b = a == std::string_view::npos ? a : text.find('|', a + 1);
    if (b == std::string_view::npos) return 0;
    weft::BuiltinSpec spec;
    spec.name = std::string(text.substr(0, a));
    spec.params.push_back({"x", std::string(text.substr(a + 1, b - a - 1))});
    spec.result = std::string(text.substr(b + 1));
    spec.native_name = "fuzz_native";
    try {
        weft::Registry::Transaction tx = registry->begin("fuzz");
        (void)tx.add_builtin(spec); // staged, never committed: the registry stays as it was
    } catch (const weft::UserError &) { // RegistrationError: the input was refused, as it should be
    }
    return 0;
}
