// libFuzzer target for the whole kernel front end: lexer, parser, checker,
// lowering. Any input must end in diagnostics or a module whose lowered IR
// passes the verifier: no crash, hang, leak or invalid IR.
#include "weft/kernel/frontend.hpp"
#include "weft/kernel/lower.hpp"
#include "weft/registry/registry.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    static const weft::Registry *registry = [] {
        auto *r = new weft::Registry;
        weft::register_core_builtins(*r);
        return r;
    }();
    weft::kernel::SourceFile file("fuzz.py", std::string(reinterpret_cast<const char *>(data), size));
    weft::kernel::FrontendResult result = weft::kernel::check_module(file, *registry);
    if (!result.ok()) return 0;
    weft::kernel::lower(result.module);
    for (const std::string &problem : weft::kernel::verify_lowered(result.module)) {
        std::fprintf(stderr, "invalid lowered IR: %s\n", problem.c_str());
        std::abort();
    }
    return 0;
}
