// build_pch: a header text -> precompiled header file, built with exactly
// the flags compile_to_object uses for the same options.
#include "internal.hpp"

#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>

namespace weft::backend {

void build_pch(std::string_view header_source, const CpuCompileOptions &options, const std::filesystem::path &out) {
    if (out.empty()) throw std::invalid_argument("build_pch: empty output path");
    // The header is known under this name in diagnostics and in the PCH
    // (as an overridden file: nothing on disk is checked for it later).
    std::filesystem::path stem = std::filesystem::path(options.source_name).stem();
    const std::string header_name = (stem.empty() ? std::string("module") : stem.string()) + ".pch.hpp";

    cpu::DiagnosticCollector collector;
    std::unique_ptr<clang::CompilerInstance> ci =
        cpu::make_compiler(header_source, options, cpu::InputKind::Header, header_name, collector);
    // The driver's -o would be header_name.gch in the working directory;
    // clang writes to a temporary next to `out` and renames it when done.
    ci->getFrontendOpts().OutputFile = out.string();
    bool ok = false;
    // A write that fails (a full disk) is an LLVM fatal error: recovered, with the path named.
    if (const std::optional<std::string> why = cpu::run_recoverable([&] {
            clang::GeneratePCHAction action;
            ok = ci->ExecuteAction(action);
        })) {
        (void)ci.release(); // left mid-write: not safe to destroy
        throw CompileError("error: cannot write the precompiled header " + out.string() + ": " + *why, {});
    }
    if (!ok || collector.has_errors()) throw cpu::make_compile_error(collector.take(), header_name);
}

} // namespace weft::backend
