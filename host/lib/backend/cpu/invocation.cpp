// Driver arguments -> CompilerInvocation (clang::createInvocation, no
// subprocess) -> CompilerInstance with the source remapped in memory.
#include "internal.hpp"

#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>

namespace weft::backend::cpu {

namespace {

/// The real file system, except that a file to read must be a regular file:
/// `#include "/dev/stdin"` or a FIFO in a preamble blocked the compile forever,
/// and `/dev/zero` would be read without end. Directories still resolve (include
/// paths are directories). Each refusal is recorded for the collector's note.
class RegularFilesOnly final : public llvm::vfs::ProxyFileSystem {
public:
    RegularFilesOnly(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs, DiagnosticCollector &collector)
        : ProxyFileSystem(std::move(fs)), collector_(collector) {}

    llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine &path) override {
        llvm::ErrorOr<llvm::vfs::Status> s = ProxyFileSystem::status(path);
        if (s && !s->isRegularFile() && !s->isDirectory()) return refuse(path);
        return s;
    }

    llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine &path) override {
        // Checked again here: a caller may open without asking status first.
        llvm::ErrorOr<llvm::vfs::Status> s = ProxyFileSystem::status(path);
        if (s && !s->isRegularFile()) return refuse(path);
        return ProxyFileSystem::openFileForRead(path);
    }

private:
    std::error_code refuse(const llvm::Twine &path) {
        collector_.refused_file(path.str());
        return std::make_error_code(std::errc::no_such_device);
    }

    DiagnosticCollector &collector_;
};

} // namespace

void append_code_flags(std::vector<std::string> &a, const CpuCompileOptions &options, InputKind kind) {
    if (options.opt_level < 0 || options.opt_level > 3)
        throw std::invalid_argument("CpuCompileOptions::opt_level must be 0..3, not " +
                                    std::to_string(options.opt_level));
    a.insert(a.end(), {
                          "-std=c++17",
                          "-O" + std::to_string(options.opt_level),
                          "-fno-exceptions",
                          "-fno-rtti",
                          // The kernel language has no forward-progress rule: `while flag[0] == 0: pass`
                          // spins as written. C++'s rule let -O2 delete such loops, and the launch
                          // returned at once.
                          "-fno-finite-loops",
                          // JITLink handles GOT/PLT relocations and maps code anywhere in the
                          // address space: position-independent code never needs a 32-bit
                          // absolute relocation.
                          "-fPIC",
                          options.native_cpu ? "-march=native" : "-march=x86-64",
                      });
    if (options.fast_math) a.emplace_back("-ffast-math");
    // Templates a header's inline functions use are instantiated once, in the
    // PCH, instead of at the end of every unit that includes it (the noise
    // functions' alone were a tenth of a small module's front end).
    if (kind == InputKind::Header) a.emplace_back("-fpch-instantiate-templates");
}

std::vector<std::string> driver_arguments(const CpuCompileOptions &options, InputKind kind,
                                          const std::string &input_name) {
    std::vector<std::string> a{
        clang_executable().string(),
        // The canonical path may be named clang-19: be the C++ driver anyway.
        "--driver-mode=g++",
        "-c",
        "-x",
        kind == InputKind::Header ? "c++-header" : "c++",
    };
    append_code_flags(a, options, kind);
    for (const auto &dir : options.weft_include_dirs) a.push_back("-I" + dir.string());
    for (const auto &dir : options.include_dirs) a.push_back("-I" + dir.string());
    for (const auto &d : options.defines) a.push_back("-D" + d);
    if (kind == InputKind::Source && !options.pch.empty()) {
        a.emplace_back("-include-pch");
        a.push_back(options.pch.string());
    }
    a.push_back(input_name);
    return a;
}

std::unique_ptr<clang::CompilerInstance> make_compiler(std::string_view source, const CpuCompileOptions &options,
                                                       InputKind kind, const std::string &input_name,
                                                       DiagnosticCollector &collector) {
    initialize_native_target();
    const std::vector<std::string> args = driver_arguments(options, kind, input_name);
    std::vector<const char *> argv;
    argv.reserve(args.size());
    for (const auto &s : args) argv.push_back(s.c_str());

    // Driver diagnostics (unknown flags, ...) go to the collector too.
    llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> driver_diag_options(new clang::DiagnosticOptions());
    llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> driver_diags =
        clang::CompilerInstance::createDiagnostics(driver_diag_options.get(), &collector, /*ShouldOwnClient=*/false);
    clang::CreateInvocationOptions cio;
    cio.Diags = driver_diags;
    cio.RecoverOnError = false;
    std::shared_ptr<clang::CompilerInvocation> invocation = clang::createInvocation(argv, cio);
    if (!invocation || collector.has_errors())
        throw make_compile_error(collector.take(), input_name + " (driver)");

    // The driver passes -disable-free (fine for a process that exits right
    // after): in a long-lived host every compile would leak ~1.6 MB.
    invocation->getFrontendOpts().DisableFree = false;
    invocation->getCodeGenOpts().DisableFree = false;
    // Carets off also stops ExecuteAction printing "N errors generated." to stderr.
    invocation->getDiagnosticOpts().ShowCarets = false;
    invocation->getDiagnosticOpts().ShowColors = false;
    // The source lives in memory; the SourceManager owns the buffer.
    invocation->getPreprocessorOpts().RetainRemappedFileBuffers = false;
    invocation->getPreprocessorOpts().addRemappedFile(
        input_name, llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(source.data(), source.size()), input_name)
                        .release());

    auto ci = std::make_unique<clang::CompilerInstance>();
    ci->setInvocation(std::move(invocation));
    ci->createDiagnostics(&collector, /*ShouldOwnClient=*/false);
    ci->createFileManager(llvm::makeIntrusiveRefCnt<RegularFilesOnly>(llvm::vfs::getRealFileSystem(), collector));
    return ci;
}

} // namespace weft::backend::cpu
