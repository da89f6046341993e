// CPU backend: C++ source -> in-memory ELF object (Clang/LLVM 19 in process,
// no subprocess) -> ORC JIT (JITLink).
//
// Thread safety: compile_to_object, build_pch and toolchain_identity may run
// on several threads at once (each compile owns its CompilerInstance and
// LLVMContext). CpuJit and JitModule are thread-safe.
#pragma once

#include "weft/support/error.hpp"

#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft::backend {

// One diagnostic from the compiler. Locations are Clang's *presumed*
// locations: a `#line 12 "kernel.py"` directive in the generated source makes
// file "kernel.py", line 12. file is empty (line/column 0) when the
// diagnostic has no location (e.g. a bad command-line flag or an unreadable PCH).
struct CpuDiagnostic {
    enum class Severity { Note, Warning, Error };
    std::string file;
    unsigned line = 0;
    unsigned column = 0;
    Severity severity = Severity::Error;
    std::string message;
};

// "file:line:col: error: message" (or "error: message" without a location).
std::string format_diagnostic(const CpuDiagnostic &d);

struct CpuCompileOptions {
    int opt_level = 2;                                      // 0..3 -> -O0..-O3
    bool fast_math = false;                                 // -ffast-math
    bool native_cpu = false;                                // -march=native; otherwise -march=x86-64
    std::vector<std::filesystem::path> weft_include_dirs;   // weft's runtime headers: searched first
    std::vector<std::filesystem::path> include_dirs;        // then these (plugin / user dirs), in order
    std::vector<std::string> defines;                       // "NAME" or "NAME=VALUE" (-D)
    std::filesystem::path pch;                              // optional: a PCH from build_pch with the same options
    std::string source_name = "module.cpp";                 // name the in-memory source is known by
    /// Names the object's static initializer and __dso_handle
    /// (weft.static_init.<part>, __dso_handle.<part>) so that several objects
    /// link into one JITDylib or shared object: a module's compile units
    /// (an id from each unit's cache key, so a cached unit keeps its names
    /// wherever it lands) and strided copies. 0: one object, plain names.
    int part = 0;
};

/// The part number of a kernel's separately compiled strided copy (codegen's
/// strided_section, 1-based): below any unit's (unit_part), so that the
/// copy's object links into the module's JITDylib beside them (JitModule::add_object).
inline constexpr int strided_copy_part(int strided_section) { return 1000 + strided_section; }
/// A compile unit's part number, from its cache key's first 8 hex digits:
/// 1,000,000 and up. Two units of a module with the same number would be a
/// duplicate definition at the link, never a silent mix-up; the pipeline
/// compiles such a module whole.
int unit_part(std::string_view key_hex);

// A compile that failed: the generated source, a plugin preamble or header,
// or a PCH that does not fit. what() lists the error diagnostics (with their
// notes) as "file:line:col: error: message" lines, at most 20 errors, never
// the generated source. diagnostics() holds everything the compiler said.
class CompileError : public UserError {
public:
    CompileError(std::string message, std::vector<CpuDiagnostic> diagnostics, bool pch_rejected = false);
    const std::vector<CpuDiagnostic> &diagnostics() const noexcept { return diagnostics_; }
    // The PCH in CpuCompileOptions::pch could not be used: missing, not a
    // PCH, corrupt, built with other flags or by another clang, or a header
    // it read has changed (Clang checks their size and mtime). Rebuild it,
    // or compile without it; the source itself was not compiled.
    bool pch_rejected() const noexcept { return pch_rejected_; }

private:
    std::vector<CpuDiagnostic> diagnostics_;
    bool pch_rejected_;
};

// A problem that is not in the source: no usable clang, a target or JIT
// failure, an object that does not link, a missing symbol.
class BackendError : public Error {
public:
    using Error::Error;
};

// Compiles one C++17 translation unit (-fno-exceptions -fno-rtti -fPIC) to a
// relocatable ELF object for the host, in memory. Throws CompileError on
// source errors. Warnings, if any, are appended to *warnings when given.
std::vector<char> compile_to_object(std::string_view source, const CpuCompileOptions &options,
                                    std::vector<CpuDiagnostic> *warnings = nullptr);

// Several relocatable objects as one artifact: a GNU ar archive with a
// symbol table, written deterministically, so an AOT copy links as it is.
// At most max_bundled_objects. A single object is returned as it is (ELF).
inline constexpr std::size_t max_bundled_objects = 64;
std::vector<char> bundle_objects(const std::vector<std::vector<char>> &objects);
// Whether an artifact is a bundle (an ar archive) rather than one object.
bool is_object_bundle(std::string_view bytes);
// The objects of `bytes`: a bundle's members, or `bytes` itself when it is not
// a bundle. Throws BackendError naming what is wrong with a malformed bundle.
std::vector<std::vector<char>> unbundle_objects(std::vector<char> bytes);

// Writes a precompiled header for header_source to `out` (atomically). Its
// users must compile with the same options (opt level, fast math, CPU,
// include dirs, defines); options.pch is ignored here. Throws CompileError.
void build_pch(std::string_view header_source, const CpuCompileOptions &options,
               const std::filesystem::path &out);

// Everything about the compiler and its flags that changes the object for a
// given source, as one line for a cache key: clang version (with the vendor
// build), target triple, CPU (for native: host CPU name and its sorted
// feature string), -O level, fast math, language flags. Include dirs,
// defines and the PCH are not in it (they are hashed with the module).
std::string toolchain_identity(const CpuCompileOptions &options);

// Absolute path of the clang++ the in-process driver pretends to be (it
// decides the resource dir and the libstdc++ headers). Throws BackendError
// when none is found.
const std::filesystem::path &clang_executable();

class CpuJit;
class JitModule;

// Links a module's object (or bundle) with the stubs shared_stubs.c into a
// shared object, by running the clang driver found by clang_executable()
// (which runs the system linker), in `work_dir`; returns its bytes. The CPU
// backend keeps each module so as well, to map it in later processes with
// dlopen: 0.07 ms, where creating the JIT and linking the object take
// 0.7-1 ms in a new process. Throws BackendError with the linker's output.
// Only where shared_objects_supported().
std::string link_shared_object(std::string_view object, const std::filesystem::path &work_dir);
// Whether this build can keep modules as shared objects (x86-64 ELF).
bool shared_objects_supported();
// Maps a shared object from link_shared_object (its bytes, checked by the
// caller) with dlopen, from a sealed in-memory copy: fills its host call
// table, runs its static constructors. The JIT is not created. Throws
// BackendError when it does not load (its symbols do not resolve here, or
// another weft build made it).
std::unique_ptr<JitModule> load_shared_object(std::string_view bytes, std::string name);

// Code of one loaded object, in its own JITDylib, or of one shared object
// (load_shared_object), mapped with dlopen. Destroying it removes the
// JITDylib, unmaps the shared object and frees the code: pointers from
// lookup() dangle afterwards.
class JitModule {
public:
    JitModule(const JitModule &) = delete;
    JitModule &operator=(const JitModule &) = delete;
    ~JitModule();

    // Address of a symbol defined in this module, by its linker name (plain
    // C name for `extern "C"`). Throws BackendError when it is absent.
    void *lookup(std::string_view symbol) const;
    template <class Fn> Fn *lookup_function(std::string_view symbol) const {
        return reinterpret_cast<Fn *>(lookup(symbol));
    }
    const std::string &name() const noexcept { return name_; }

    // Links one more object into this module, now: a kernel's strided copy,
    // compiled with CpuCompileOptions::part = strided_copy_part(section). Its
    // undefined symbols resolve against the module's own first (its globals,
    // the dense copies), and its static constructors run. On failure
    // (BackendError) the module's code is unchanged and still usable; the
    // object's symbols may stay reserved, so do not retry the same one.
    void add_object(std::vector<char> object, int part);

    // Whether the module was mapped from a shared object (load_shared_object).
    bool shared_object() const noexcept { return native_ != nullptr; }

private:
    friend class CpuJit;
    friend std::unique_ptr<JitModule> load_shared_object(std::string_view bytes, std::string name);
    JitModule(CpuJit *jit, void *dylib, std::string name);
    void link(std::vector<std::vector<char>> objects, const std::vector<int> &parts);
    void *ensure_dylib(); // a shared object's JITDylib for add_object, made on first use
    CpuJit *jit_;               // null for a shared object until an object is added
    void *dylib_;               // llvm::orc::JITDylib*; null for a shared object until an object is added
    void *native_ = nullptr;    // dlopen handle of a shared object
    void *exit_key_ = nullptr;  // its host table: the key of its static destructors
    mutable std::mutex mutex_;  // defined_ and dso_handles_ grow when an object is added
    std::vector<void *> dso_handles_; // each object's __dso_handle, where it has static destructors
    std::string name_;
    // Every symbol the module defines, by linker name, as the link resolved
    // them: lookup() answers from here, one ORC lookup per kernel cost a
    // tenth of a warm load (bench_cpu_compile).
    mutable std::unordered_map<std::string, void *> defined_; // a shared object's grow as lookup() finds them
};

// The process-wide ORC JIT (created on first use, never destroyed).
class CpuJit {
public:
    static CpuJit &instance();
    /// Creates the JIT on a background thread unless it exists or is being
    /// created: its creation (target setup, about a millisecond in a new
    /// process) then overlaps the caller's own start-up, e.g. a Host
    /// registering core builtins. The toolchain identity of the default
    /// flags is computed there first (a warm load's content key needs it).
    /// The result is ready when it is waited for; instance() waits too. A
    /// failed creation is reported by instance().
    static std::shared_future<void> prepare();

    // Links `object` (from compile_to_object, or a bundle of a module's compile units)
    // into a new JITDylib named after
    // `name` (made unique), now: undefined symbols resolve against the host
    // symbols defined through define_host_symbols, then the process (libc,
    // libm, libstdc++ and any symbol the executable exports dynamically).
    // Then runs the module's static constructors; its static destructors
    // run when the JitModule is destroyed. Throws BackendError when the
    // object is not valid or a symbol is unresolved ("Symbols not found").
    std::unique_ptr<JitModule> load(std::vector<char> object, std::string name);

    // Makes host functions / data visible to modules loaded afterwards (for
    // symbols the executable does not export dynamically). A name can be
    // defined once per process: defining it again throws BackendError.
    void define_host_symbols(const std::vector<std::pair<std::string, void *>> &symbols);

    CpuJit(const CpuJit &) = delete;
    CpuJit &operator=(const CpuJit &) = delete;

private:
    struct Impl;
    CpuJit();
    ~CpuJit();
    friend class JitModule;
    // load() without marking that a module load has begun (prepare's prewarm link).
    std::unique_ptr<JitModule> link_new(std::vector<char> object, std::string name);
    std::unique_ptr<Impl> impl_;
};

} // namespace weft::backend
