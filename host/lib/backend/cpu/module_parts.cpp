// A module compiled as several translation units at once: the Clang front
// end, the optimizer and code generation each run on one thread per unit,
// so a many-kernel module's cold compile takes about as long as its largest
// part (issue 20). Which kernels go in which part is decided by codegen and
// written into the source, so it is hashed like everything else that
// changes the binary; the machine only decides how many parts run at once.
#include "weft/backend/cpu_compiler.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

namespace weft::backend {

std::vector<char> compile_module(std::string_view source, int parts, const CpuCompileOptions &options) {
    if (parts <= 1) return compile_to_object(source, options);
    if (static_cast<std::size_t>(parts) > max_bundled_objects)
        throw std::invalid_argument("compile_module: " + std::to_string(parts) + " parts, more than " +
                                    std::to_string(max_bundled_objects));
    std::vector<std::vector<char>> objects(static_cast<std::size_t>(parts));
    std::vector<std::exception_ptr> failures(objects.size());
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t i; (i = next.fetch_add(1)) < objects.size();) {
            try {
                CpuCompileOptions o = options;
                o.part = static_cast<int>(i) + 1;
                objects[i] = compile_to_object(source, o);
            } catch (...) {
                failures[i] = std::current_exception();
            }
        }
    };
    const std::size_t threads =
        std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, objects.size());
    std::vector<std::thread> helpers;
    helpers.reserve(threads - 1);
    try {
        for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(work);
    } catch (...) {
        // No more threads to be had (std::system_error, or no memory for one):
        // the ones that started, and this one, do it all.
    }
    work();
    for (std::thread &t : helpers) t.join();
    for (const std::exception_ptr &f : failures)
        if (f) std::rethrow_exception(f);
    return bundle_objects(objects);
}

} // namespace weft::backend
