// A module compiled as several translation units at once: the Clang front
// end, the optimizer and code generation each run on one thread per unit,
// so a many-kernel module's cold compile takes about as long as its largest
// part (issue 20). Which kernels go in which part is decided by codegen and
// written into the source, so it is hashed like everything else that
// changes the binary; the machine only decides how many parts run at once.
#include "weft/backend/cpu_compiler.hpp"

#include "weft/support/concurrent.hpp"

namespace weft::backend {

std::vector<char> compile_module(std::string_view source, int parts, const CpuCompileOptions &options) {
    if (parts <= 1) return compile_to_object(source, options);
    if (static_cast<std::size_t>(parts) > max_bundled_objects)
        throw std::invalid_argument("compile_module: " + std::to_string(parts) + " parts, more than " +
                                    std::to_string(max_bundled_objects));
    std::vector<std::vector<char>> objects(static_cast<std::size_t>(parts));
    run_concurrently(objects.size(), [&](std::size_t i) {
        CpuCompileOptions o = options;
        o.part = static_cast<int>(i) + 1;
        objects[i] = compile_to_object(source, o);
    });
    return bundle_objects(objects);
}

} // namespace weft::backend
