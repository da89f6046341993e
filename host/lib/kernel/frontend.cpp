#include "weft/kernel/frontend.hpp"

#include "bundled_functions.hpp"
#include "checker.hpp"
#include "weft/kernel/parser.hpp"

#include <filesystem>

namespace weft::kernel {

bool FrontendResult::ok() const {
    for (const Diagnostic &d : diagnostics)
        if (d.severity == Diagnostic::Severity::Error) return false;
    return true;
}

FrontendResult check_module(const SourceFile &input, const Registry &registry, const FrontendOptions &options) {
    // A UTF-8 byte-order mark (Windows editors write one) is not source, as in Python.
    const bool bom = input.text().rfind("\xEF\xBB\xBF", 0) == 0;
    const SourceFile stripped(input.name(), bom ? input.text().substr(3) : std::string());
    const SourceFile &file = bom ? stripped : input;
    DiagnosticEngine diags(file, options.error_limit);
    FrontendResult result;
    result.module.name = std::filesystem::path(file.name()).stem().string();
    result.module.source_path = file.name();
    ast::Module tree = parse_module(file, diags);
    // A module that does not parse is not checked: its errors would be guesses.
    if (!diags.has_errors()) {
        detail::add_bundled_functions(tree);
        detail::Checker checker(tree, registry, diags, result.module);
        checker.run();
    }
    result.diagnostics = diags.diagnostics();
    result.formatted = diags.format_all();
    result.dropped_errors = diags.dropped_errors();
    return result;
}

ir::Module compile_module(const SourceFile &file, const Registry &registry, const FrontendOptions &options) {
    FrontendResult r = check_module(file, registry, options);
    if (!r.ok()) throw KernelSourceError(r.formatted, r.diagnostics);
    return std::move(r.module);
}

FrontendResult check_file(const std::string &path, const Registry &registry, const FrontendOptions &options) {
    return check_module(SourceFile(path, read_source_text(path)), registry, options);
}

} // namespace weft::kernel
