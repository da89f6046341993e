// compile_to_object: C++ source in memory -> Clang frontend + IR optimizer
// (EmitLLVMOnlyAction) -> object code (codegen.cpp). One CompilerInstance and
// one LLVMContext per call, so calls on several threads do not share state.
#include "internal.hpp"

#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

namespace weft::backend {

std::vector<char> compile_to_object(std::string_view source, const CpuCompileOptions &options,
                                    std::vector<CpuDiagnostic> *warnings) {
    cpu::DiagnosticCollector collector;
    // On the heap: after an LLVM fatal error (recovery.cpp) they are leaked, not destroyed.
    auto context = std::make_unique<llvm::LLVMContext>(); // outlives the module and the compiler
    std::unique_ptr<clang::CompilerInstance> ci =
        cpu::make_compiler(source, options, cpu::InputKind::Source, options.source_name, collector);

    // Runs the frontend and the -O<n> IR pipeline (with the target's cost
    // model), stops before code generation.
    auto action = std::make_unique<clang::EmitLLVMOnlyAction>(context.get());
    bool ok = false;
    auto abandon = [&](const std::string &what, const std::string &why) {
        (void)action.release();
        (void)ci.release();
        (void)context.release();
        return CompileError("error: " + what + " " + options.source_name + " failed: " + why, collector.take());
    };
    if (const std::optional<std::string> why = cpu::run_recoverable([&] { ok = ci->ExecuteAction(*action); }))
        throw abandon("compiling", *why);
    std::unique_ptr<llvm::Module> module = action->takeModule();
    if (!ok || !module || collector.has_errors()) {
        const bool pch_rejected = !options.pch.empty() && collector.pch_problem();
        if (pch_rejected)
            collector.add({options.pch.string(), 0, 0, CpuDiagnostic::Severity::Note,
                           "this precompiled header cannot be used here: rebuild it with the same options "
                           "(build_pch) or compile without it"});
        throw cpu::make_compile_error(collector.take(), options.source_name, pch_rejected);
    }

    cpu::lower_static_constructors(*module, options.part);
    std::vector<char> object;
    if (const std::optional<std::string> why = cpu::run_recoverable([&] {
            object = cpu::emit_object(*module, ci->getInvocation(),
                                      ci->hasSourceManager() ? &ci->getSourceManager() : nullptr, collector);
        })) {
        (void)module.release();
        throw abandon("generating code for", *why);
    }
    if (collector.has_errors()) throw cpu::make_compile_error(collector.take(), options.source_name);
    if (warnings) {
        auto w = collector.warnings();
        warnings->insert(warnings->end(), std::make_move_iterator(w.begin()), std::make_move_iterator(w.end()));
    }
    return object;
}

} // namespace weft::backend
