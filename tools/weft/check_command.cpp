// `weft check FILE.py [--plugin PATH]... [--json]`: runs the kernel front end on a file.
#include "commands.hpp"

#include "weft/host/host.hpp"
#include "weft/kernel/frontend.hpp"
#include "weft/kernel/lower.hpp"
#include "weft/codegen/cpp_emitter.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cstdio>

namespace weft::cli {

namespace {

using nlohmann::json;

std::vector<std::string> loaded_names(const Host &host) {
    std::vector<std::string> names;
    for (const LoadedPlugin *p : host.plugins()) names.push_back(p->name());
    return names;
}

const char *severity_name(kernel::Diagnostic::Severity s) {
    switch (s) {
    case kernel::Diagnostic::Severity::Error: return "error";
    case kernel::Diagnostic::Severity::Warning: return "warning";
    case kernel::Diagnostic::Severity::Note: return "note";
    }
    return "error";
}

std::string plural(std::size_t n, const char *word, const char *suffix = "s") {
    return std::to_string(n) + " " + word + (n == 1 ? "" : suffix);
}

json report_json(const KernelCheckOptions &o, const kernel::FrontendResult &r, std::size_t errors,
                 std::size_t warnings) {
    json kernels = json::array();
    json functions = json::array();
    for (const kernel::ir::Function &f : r.module.functions) {
        json params = json::array();
        for (const kernel::ir::Variable &p : f.params) params.push_back({{"name", p.name}, {"type", p.type.name()}});
        json entry = {{"name", f.name},
                      {"mangled_name", f.mangled_name},
                      {"line", f.location.line},
                      {"column", f.location.column},
                      {"params", params}};
        (f.is_kernel ? kernels : functions).push_back(std::move(entry));
    }
    json structs = json::array();
    for (const kernel::ir::Struct &s : r.module.structs) structs.push_back(s.name);
    json constants = json::array();
    for (const kernel::ir::Constant &c : r.module.constants) constants.push_back(c.name);
    json builtins = json::array();
    for (const BuiltinOverload &b : r.module.references.builtins) builtins.push_back(b.signature());
    json native_types = json::array();
    for (const NativeTypeInfo &t : r.module.references.native_types) native_types.push_back(t.native_name);
    json diagnostics = json::array();
    for (const kernel::Diagnostic &d : r.diagnostics) {
        json entry = {{"severity", severity_name(d.severity)}, {"file", o.file}, {"message", d.text()}};
        if (d.location.valid()) {
            entry["line"] = d.location.line;
            entry["column"] = d.location.column;
        }
        diagnostics.push_back(std::move(entry));
    }
    return {{"file", o.file},
            {"module", r.module.name},
            {"ok", errors == 0},
            {"errors", errors},
            {"warnings", warnings},
            {"errors_not_reported", r.dropped_errors},
            {"kernels", errors ? json::array() : kernels},
            {"functions", errors ? json::array() : functions},
            {"structs", errors ? json::array() : structs},
            {"constants", errors ? json::array() : constants},
            {"builtins", errors ? json::array() : builtins},
            {"native_types", errors ? json::array() : native_types},
            {"diagnostics", diagnostics}};
}

} // namespace

int kernel_check(const KernelCheckOptions &o) {
    HostOptions ho;
    for (const std::string &p : o.search_path) ho.search_path.emplace_back(p);
    apply_host_settings(ho);
    Host host(ho);
    for (const std::string &p : o.plugins) load_plugin_argument(host, p);

    kernel::FrontendOptions fo;
    fo.error_limit = o.error_limit;
    kernel::FrontendResult r = kernel::check_file(o.file, host.registry(), fo);
    // An unknown function under an installed plugin's prefix: say which plugin to load.
    for (kernel::Diagnostic &note : plugin_notes(host, r.diagnostics)) {
        r.formatted += fmt::format("{}:{}:{}: note: {}\n", o.file, note.location.line, note.location.column, note.message);
        r.diagnostics.push_back(std::move(note));
    }
    std::size_t errors = 0, warnings = 0;
    for (const kernel::Diagnostic &d : r.diagnostics) {
        if (d.severity == kernel::Diagnostic::Severity::Error) ++errors;
        if (d.severity == kernel::Diagnostic::Severity::Warning) ++warnings;
    }
    // The report on stdout is complete and flushed before any diagnostic
    // reaches stderr, so a reader of both streams never sees them interleaved.
    auto finish = [&](int status) {
        std::fflush(stdout);
        print_to(stderr, "{}", r.formatted);
        if (errors && !o.json)
            print_to(stderr, "{}: {}, {}\n", o.file, plural(errors + r.dropped_errors, "error"),
                       plural(warnings, "warning"));
        return status;
    };

    if (o.json) {
        // Replace, not throw, on bytes that are not UTF-8 (a path, an echoed name).
        print_out("{}\n", report_json(o, r, errors, warnings).dump(2, ' ', false, json_invalid_utf8));
        return finish(errors ? 1 : 0);
    }
    if (errors) return finish(1);
    if (o.emit_cpp || o.emit_cuda) {
        ModuleSettings &m = host.module(r.module.name);
        host.set_module_plugins(m, loaded_names(host));
        kernel::lower(r.module);
        print_out("{}", codegen::generate_cpp(r.module, m.resolved_options(),
                                               o.emit_cuda ? codegen::Backend::Cuda : codegen::Backend::Cpu)
                             .text);
        return finish(0);
    }
    if (!o.dump_ir.empty()) {
        if (o.dump_ir == "lowered") {
            kernel::lower(r.module);
            if (const auto problems = kernel::verify_lowered(r.module); !problems.empty()) {
                for (const std::string &p : problems) print_to(stderr, "internal error: {}\n", p);
                return 2;
            }
        }
        print_out("{}", kernel::print_ir(r.module));
        return finish(0);
    }
    std::size_t kernels = 0, functions = 0;
    for (const kernel::ir::Function &f : r.module.functions) (f.is_kernel ? kernels : functions)++;
    print_out("{}: ok: {}, {}, {}, {}, {} and {} referenced\n", o.file, plural(kernels, "kernel"),
               plural(functions, "function instance"), plural(r.module.structs.size(), "struct"),
               plural(r.module.constants.size(), "constant"), plural(r.module.references.builtins.size(), "builtin"),
               plural(r.module.references.native_types.size(), "native type"));
    return finish(0);
}

} // namespace weft::cli
