// `weft check FILE.py [--plugin PATH]...`: runs the kernel front end on a file.
#include "commands.hpp"

#include "weft/host/host.hpp"
#include "weft/kernel/frontend.hpp"
#include "weft/kernel/lower.hpp"
#include "weft/codegen/cpp_emitter.hpp"

#include <fmt/core.h>

namespace weft::cli {

namespace {
std::vector<std::string> loaded_names(const Host &host) {
    std::vector<std::string> names;
    for (const LoadedPlugin *p : host.plugins()) names.push_back(p->name());
    return names;
}
} // namespace

int kernel_check(const KernelCheckOptions &o) {
    HostOptions ho;
    for (const std::string &p : o.search_path) ho.search_path.emplace_back(p);
    Host host(ho);
    for (const std::string &p : o.plugins) host.load(p);

    kernel::FrontendOptions fo;
    fo.error_limit = o.error_limit;
    kernel::FrontendResult r = kernel::check_file(o.file, host.registry(), fo);
    fmt::print(stderr, "{}", r.formatted);
    std::size_t errors = 0, warnings = 0;
    for (const kernel::Diagnostic &d : r.diagnostics) {
        if (d.severity == kernel::Diagnostic::Severity::Error) ++errors;
        if (d.severity == kernel::Diagnostic::Severity::Warning) ++warnings;
    }
    if (errors) {
        fmt::print(stderr, "{}: {} error{}, {} warning{}\n", o.file, errors, errors == 1 ? "" : "s", warnings,
                   warnings == 1 ? "" : "s");
        return 1;
    }
    if (o.emit_cpp || o.emit_cuda) {
        Module &m = host.module(r.module.name);
        host.set_module_plugins(m, loaded_names(host));
        kernel::lower(r.module);
        fmt::print("{}", codegen::generate_cpp(r.module, m.resolved_options(),
                                               o.emit_cuda ? codegen::Backend::Cuda : codegen::Backend::Cpu)
                             .text);
        return 0;
    }
    if (!o.dump_ir.empty()) {
        if (o.dump_ir == "lowered") {
            kernel::lower(r.module);
            if (const auto problems = kernel::verify_lowered(r.module); !problems.empty()) {
                for (const std::string &p : problems) fmt::print(stderr, "internal error: {}\n", p);
                return 2;
            }
        }
        fmt::print("{}", kernel::print_ir(r.module));
        return 0;
    }
    std::size_t kernels = 0, functions = 0;
    for (const kernel::ir::Function &f : r.module.functions) (f.is_kernel ? kernels : functions)++;
    fmt::print("{}: ok: {} kernel{}, {} function instance{}, {} struct{}, {} constant{}, {} builtin{} and {} native type{} referenced\n",
               o.file, kernels, kernels == 1 ? "" : "s", functions, functions == 1 ? "" : "s", r.module.structs.size(),
               r.module.structs.size() == 1 ? "" : "s", r.module.constants.size(),
               r.module.constants.size() == 1 ? "" : "s", r.module.references.builtins.size(),
               r.module.references.builtins.size() == 1 ? "" : "s", r.module.references.native_types.size(),
               r.module.references.native_types.size() == 1 ? "" : "s");
    return 0;
}

} // namespace weft::cli
