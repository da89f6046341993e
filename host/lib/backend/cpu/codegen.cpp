// Optimized LLVM IR -> relocatable ELF object in memory
// (TargetMachine::addPassesToEmitFile), with the target Clang chose.
#include "internal.hpp"

#include <clang/Basic/CodeGenOptions.h>
#include <clang/Basic/LangOptions.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Basic/TargetOptions.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

namespace weft::backend::cpu {

namespace {

// What clang's BackendUtil (initTargetOptions) sets for the cases we use.
llvm::TargetOptions target_options(const clang::CompilerInvocation &inv) {
    const clang::LangOptions &lang = inv.getLangOpts();
    const clang::CodeGenOptions &cg = inv.getCodeGenOpts();
    llvm::TargetOptions o;
    o.UseInitArray = cg.UseInitArray;
    o.FunctionSections = cg.FunctionSections;
    o.DataSections = cg.DataSections;
    o.UniqueSectionNames = cg.UniqueSectionNames;
    o.MCOptions.X86RelaxRelocations = cg.RelaxELFRelocations;
    switch (lang.getDefaultFPContractMode()) {
    case clang::LangOptions::FPM_Off: o.AllowFPOpFusion = llvm::FPOpFusion::Strict; break;
    case clang::LangOptions::FPM_On:
    case clang::LangOptions::FPM_FastHonorPragmas: o.AllowFPOpFusion = llvm::FPOpFusion::Standard; break;
    case clang::LangOptions::FPM_Fast: o.AllowFPOpFusion = llvm::FPOpFusion::Fast; break;
    }
    o.NoInfsFPMath = lang.NoHonorInfs;
    o.NoNaNsFPMath = lang.NoHonorNaNs;
    o.NoSignedZerosFPMath = lang.NoSignedZero;
    o.ApproxFuncFPMath = lang.ApproxFunc;
    o.UnsafeFPMath = lang.AllowFPReassoc && lang.AllowRecip && lang.NoSignedZero && lang.ApproxFunc &&
                     (lang.getDefaultFPContractMode() == clang::LangOptions::FPM_Fast ||
                      lang.getDefaultFPContractMode() == clang::LangOptions::FPM_FastHonorPragmas);
    return o;
}

struct BackendDiagnosticContext {
    DiagnosticCollector &collector;
    const clang::SourceManager *sources;
};

// Inline asm carries a cookie: the clang SourceLocation of the asm statement.
bool locate_cookie(uint64_t cookie, const clang::SourceManager *sources, CpuDiagnostic &d) {
    if (!sources || cookie == 0 || cookie > UINT32_MAX) return false;
    const auto loc = clang::SourceLocation::getFromRawEncoding(static_cast<clang::SourceLocation::UIntTy>(cookie));
    const clang::PresumedLoc p = sources->getPresumedLoc(loc);
    if (p.isInvalid()) return false;
    d.file = p.getFilename();
    d.line = p.getLine();
    d.column = p.getColumn();
    return true;
}

// LLVM's default handler prints and calls exit(1) on an error (an inline asm
// typo would end the host): collect instead.
void collect_backend_diagnostic(const llvm::DiagnosticInfo *diagnostic, void *context) {
    const llvm::DiagnosticInfo &info = *diagnostic;
    auto &ctx = *static_cast<BackendDiagnosticContext *>(context);
    CpuDiagnostic d;
    switch (info.getSeverity()) {
    case llvm::DS_Error: d.severity = CpuDiagnostic::Severity::Error; break;
    case llvm::DS_Warning: d.severity = CpuDiagnostic::Severity::Warning; break;
    case llvm::DS_Note: d.severity = CpuDiagnostic::Severity::Note; break;
    case llvm::DS_Remark: return;
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    if (auto *sm = llvm::dyn_cast<llvm::DiagnosticInfoSrcMgr>(&info)) {
        os << sm->getSMDiag().getMessage();
        if (sm->isInlineAsmDiag()) os << " (in inline asm)";
        locate_cookie(sm->getLocCookie(), ctx.sources, d);
    } else if (auto *as = llvm::dyn_cast<llvm::DiagnosticInfoInlineAsm>(&info)) {
        os << as->getMsgStr() << " (in inline asm)";
        locate_cookie(as->getLocCookie(), ctx.sources, d);
    } else {
        llvm::DiagnosticPrinterRawOStream printer(os);
        info.print(printer);
    }
    d.message = os.str();
    ctx.collector.add(std::move(d));
}

} // namespace

std::vector<char> emit_object(llvm::Module &module, const clang::CompilerInvocation &invocation,
                              const clang::SourceManager *sources, DiagnosticCollector &collector) {
    const clang::TargetOptions &target_opts = invocation.getTargetOpts();
    const std::string &triple = target_opts.Triple;
    std::string error;
    const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target) throw BackendError("no LLVM target for " + triple + ": " + error);

    std::string features;
    for (const std::string &f : target_opts.Features) features += (features.empty() ? "" : ",") + f;
    const auto level = llvm::CodeGenOpt::getLevel(static_cast<int>(invocation.getCodeGenOpts().OptimizationLevel));
    const auto reloc = invocation.getCodeGenOpts().RelocationModel;
    std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
        triple, target_opts.CPU, features, target_options(invocation), reloc, std::nullopt,
        level.value_or(llvm::CodeGenOptLevel::Default)));
    if (!machine) throw BackendError("could not create an LLVM target machine for " + triple + " " + target_opts.CPU);
    if (module.getDataLayout() != machine->createDataLayout())
        throw BackendError("internal: the module's data layout differs from the target machine's (" + triple + ")");

    llvm::SmallVector<char, 0> buffer;
    llvm::raw_svector_ostream out(buffer);
    llvm::legacy::PassManager passes;
    if (machine->addPassesToEmitFile(passes, out, nullptr, llvm::CodeGenFileType::ObjectFile))
        throw BackendError("the LLVM target " + triple + " cannot emit object files");

    llvm::LLVMContext &context = module.getContext();
    BackendDiagnosticContext diagnostic_context{collector, sources};
    context.setDiagnosticHandlerCallBack(collect_backend_diagnostic, &diagnostic_context);
    passes.run(module);
    context.setDiagnosticHandlerCallBack(nullptr, nullptr);
    return std::vector<char>(buffer.begin(), buffer.end());
}

} // namespace weft::backend::cpu
