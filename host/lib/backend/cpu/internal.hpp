// Private to weft_backend_cpu: the pieces the compiler, PCH and JIT files share.
#pragma once

#include "weft/backend/cpu_compiler.hpp"

#include <clang/Basic/Diagnostic.h>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clang {
class CompilerInstance;
class CompilerInvocation;
class SourceManager;
} // namespace clang

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace weft::backend::cpu {

// toolchain.cpp: registers the native target, asm printer and asm parser (once, thread-safe).
void initialize_native_target();

// diagnostics.cpp: collects everything Clang says, at presumed locations.
class DiagnosticCollector final : public clang::DiagnosticConsumer {
public:
    void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) override;

    void add(CpuDiagnostic d) { diagnostics_.push_back(std::move(d)); }
    bool has_errors() const;
    const std::vector<CpuDiagnostic> &diagnostics() const noexcept { return diagnostics_; }
    std::vector<CpuDiagnostic> take() { return std::move(diagnostics_); }
    std::vector<CpuDiagnostic> warnings() const;
    // An error said the PCH could not be loaded.
    bool pch_problem() const noexcept { return pch_problem_; }
    // The file system refused to read `path` (not a regular file): the error
    // that names it gets a note saying what it is.
    void refused_file(std::string path) { refused_.push_back(std::move(path)); }

private:
    std::vector<std::string> refused_;
    std::vector<CpuDiagnostic> diagnostics_;
    bool pch_problem_ = false;
};

// The CompileError for a failed compile: errors (and their notes) listed,
// at most max_listed_errors of them. `what` names the failing unit when no
// diagnostic says anything.
CompileError make_compile_error(std::vector<CpuDiagnostic> diagnostics, std::string_view what,
                                bool pch_rejected = false);
inline constexpr std::size_t max_listed_errors = 20;

// The object of prewarm.c, built with the build's Clang (prewarm_object.cpp,
// generated): CpuJit::prepare links it once so a first real link runs warm.
std::string_view prewarm_object();

// recovery.cpp: runs `work` so that an LLVM fatal error, an allocation LLVM
// cannot make, or a crash inside it returns why ("LLVM: REASON") instead of
// ending the process; nullopt when it finished. After a failure the objects
// `work` used may be inconsistent (it was left by a long jump): the caller
// must not destroy them (it leaks them, as clang's integrated cc1 does).
void install_llvm_error_handlers();
std::optional<std::string> run_recoverable(const std::function<void()> &work);

// invocation.cpp: one CompilerInstance set up from driver arguments, with
// `source` remapped in memory under `source_name`; the same flags for
// sources and for PCH headers (a PCH must match its users exactly).
enum class InputKind { Source, Header };
/// The flags that shape the generated code (-std= to -march=, -ffast-math),
/// in the order driver_arguments passes them: the toolchain identity hashes them.
void append_code_flags(std::vector<std::string> &args, const CpuCompileOptions &options, InputKind kind);
std::vector<std::string> driver_arguments(const CpuCompileOptions &options, InputKind kind,
                                          const std::string &input_name);
std::unique_ptr<clang::CompilerInstance> make_compiler(std::string_view source, const CpuCompileOptions &options,
                                                       InputKind kind, const std::string &input_name,
                                                       DiagnosticCollector &collector);

// codegen.cpp: optimized IR -> relocatable ELF object for the invocation's
// target (triple, CPU, features, relocation model, FP options). Backend
// errors (inline asm) are collected, located through `sources` when given.
std::vector<char> emit_object(llvm::Module &module, const clang::CompilerInvocation &invocation,
                              const clang::SourceManager *sources, DiagnosticCollector &collector);

// static_init.cpp: llvm.global_ctors -> one function named
// static_init_name(part) (nothing else would run them: there is no ORC
// platform runtime), and an object-local __dso_handle for static destructors,
// named dso_handle_name(part) (CpuCompileOptions::part).
inline constexpr const char *static_init_symbol = "weft.static_init";
std::string static_init_name(int part); // "weft.static_init", "weft.static_init.<part>"
std::string dso_handle_name(int part);  // "__dso_handle", "__dso_handle.<part>"
// Whether a symbol is one of those, of any part: a linked module finds each
// object's by name, wherever the object sits in its bundle.
bool is_static_init_name(std::string_view symbol);
bool is_dso_handle_name(std::string_view symbol);
void lower_static_constructors(llvm::Module &module, int part);

} // namespace weft::backend::cpu
