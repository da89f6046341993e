// libFuzzer target for the whole kernel front end: lexer, parser, checker.
// Any input must end in diagnostics or a module: no crash, hang or leak.
#include "weft/kernel/frontend.hpp"
#include "weft/registry/registry.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    static const weft::Registry *registry = [] {
        auto *r = new weft::Registry;
        weft::register_core_builtins(*r);
        return r;
    }();
    weft::kernel::SourceFile file("fuzz.py", std::string(reinterpret_cast<const char *>(data), size));
    const weft::kernel::FrontendResult result = weft::kernel::check_module(file, *registry);
    (void)result;
    return 0;
}
