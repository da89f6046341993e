// C++ source from a lowered kernel module: one translation unit holding
// weft's runtime headers, the plugins' preambles (each behind a #line marker
// naming its provenance), the ABI contract of every referenced native type,
// user structs with layout checks, functions and kernel entry points. Kernel
// bodies carry #line back to the .py source, so compiler errors point there.
#pragma once

#include "weft/build/build_options.hpp"
#include "weft/kernel/ir.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace weft::codegen {

enum class Backend { Cpu, Cuda };

/// A kernel as the runtime launches it.
struct KernelEntry {
    std::string name;   // as written in the .py file
    std::string key;    // the decorator's name= (Warp's kernel key), or ""
    std::string symbol; // extern "C" entry point in the generated source
    std::vector<KernelParam> params;
    int tid_dims = 0; // 0: tid() unused or not unpacked
    kernel::ir::EntryPointAbi abi = kernel::ir::EntryPointAbi::Warp;
    /// CPU kernels with a dense specialization: the WEFT_STRIDED value that
    /// compiles this kernel's strided instantiation alone (0: the kernel has
    /// one instantiation, launched through `symbol`). See strided_variant.
    int strided_section = 0;
    /// CPU backward entries: the entry parameters (gradient arrays) whose
    /// elements several threads of a launch add to, which generated code adds
    /// to with plain adds. A launch runs such an entry on one thread, or gives
    /// each concurrently running range a zeroed private copy of those arrays
    /// and adds the copies into them afterwards, in range order
    /// (weft/runtime/launch.hpp launch_cpu).
    std::vector<int> private_gradients;
    /// The kernel's body has a loop: one thread's work may be long, so a
    /// launch splits short grids across threads too (CPU).
    bool loops = false;
    /// The module asks for Warp's deterministic mode: a CPU launch runs the
    /// grid on one thread, in index order (so atomics add in Warp's order).
    bool serial = false;
    /// A tile kernel (Warp's launch_tiled): its launch grid counts blocks of
    /// LaunchOptions::block_dim threads; tid() is the block's index.
    bool tiled = false;
    /// Forward entries: why the kernel has no backward pass although its
    /// module has one (a tile gradient weft refuses, at file:line:col), or "".
    /// Its module's other kernels keep theirs.
    std::string no_backward;
};

/// The WEFT_STRIDED define of a CPU compile (cpp text guards on it). A kernel
/// with a dense specialization runs its array indexing with constant
/// innermost strides when every array argument is dense there; the general
/// (strided) copy is about as much code again and is needed only for views
/// with gaps, so a JIT load compiles the dense copies alone and each kernel's
/// strided copy when a launch first needs it (issue 20: a third of a cold
/// compile). In every mode the text defines:
///   whole (0, the default):  `symbol`, which tests density and calls either;
///   dense_only (-1):         `symbol`_dense, for arguments whose arrays are
///                            all dense in their last dimension (the host
///                            tests: weft/runtime/launch.hpp innermost_dense);
///   section k (> 0):         `symbol`_strided of the kernel with
///                            strided_section k, and its `symbol`, which
///                            tests density and calls the dense copy of a
///                            dense_only object or the strided one.
inline constexpr int strided_whole = 0;
inline constexpr int strided_dense_only = -1;
inline constexpr const char *strided_macro = "WEFT_STRIDED";
inline std::string dense_symbol(const KernelEntry &k) { return k.symbol + "_dense"; }
inline std::string strided_symbol(const KernelEntry &k) { return k.symbol + "_strided"; }

/// The digest of what the kernels of a module are (names, keys, entry
/// symbols, parameters and their types, tid() use, ABI), 64 hex digits. The
/// generated text defines it as extern "C" weft_kernel_signatures (a
/// __device__ array on CUDA), so an AOT artifact can be checked against the
/// source it is loaded for: a changed signature is refused by name, never
/// launched with another layout.
std::string kernel_signature_digest(const std::vector<KernelEntry> &kernels);
inline constexpr const char *kernel_signatures_symbol = "weft_kernel_signatures";

/// A CPU module's kernels as translation units that compile apart and are
/// cached apart (issue 42: an edit recompiles the kernels it changed). A
/// unit's text is whole on its own: the module's runtime includes and
/// declarations (contracts, structs, tuples, constants), the functions its
/// kernels reach, and its kernels; the first unit also defines the module's
/// globals and kernel signature digest. Nothing in a unit's text depends on
/// the other kernels, so its cache key is its own text (with #line numbers
/// left out: they reach no object code), and a unit whose text an edit left
/// as it was is taken from the cache. Each unit is also what a kernel's
/// strided copy compiles (WEFT_STRIDED = its section).
struct CompileUnit {
    std::string name;         // its kernels' names joined by '+' (three, then "+N_more"), for messages and file names
    std::string text;
    std::vector<int> kernels; // indices into GeneratedSource::kernels, in source order
};

struct GeneratedSource {
    std::string text;
    std::string file_name; // the name the source is compiled as (diagnostics)
    std::vector<KernelEntry> kernels;
    /// CPU modules with kernels and no preamble code (every unit would define
    /// it again): one unit per kernel, or per group of kernels when a module
    /// has more than max_units. Empty: `text` is compiled as one unit (CUDA,
    /// a CPU preamble, no kernels).
    std::vector<CompileUnit> units;
};

/// At most this many units per module: each pays the fixed front-end work
/// again (the PCH, the declarations: about 10-15 ms, bench_cpu_compile), so a
/// module of hundreds of small kernels groups them, each kernel into the unit
/// its name hashes to (an edit then recompiles the kernels that share its
/// unit; adding or removing a kernel regroups nothing else).
inline constexpr std::size_t max_units = 32;

/// `text` with the number of every #line directive left out: what a unit's
/// cache key hashes. Line markers reach diagnostics only (no debug
/// information is compiled; run-time messages spell their lines as values
/// in the text), so a unit that an edit above it only moved keeps its key.
std::string without_line_numbers(std::string_view text);

/// The macro through which generated text names its kernel file (in #line
/// markers and compile-time messages). The text defines it to "<module>.py"
/// unless the compiler is given it: the pipeline passes the real path as a
/// define, which is not part of the hashed text.
inline constexpr const char *source_file_macro = "WEFT_PY_FILE";

/// A C/C++ string literal holding `text` (quotes, backslashes and control
/// bytes escaped), e.g. for a -D value.
std::string c_string_literal(const std::string &text);

/// What changes the generated text beyond the module and its options.
struct CodegenOptions {
    /// Debug mode: every array access is bounds-checked (weft::index_checked);
    /// a violation counts as a failed check and names kernel, file:line, index and shape.
    bool bounds_checks = false;
    /// The backward pass: user functions with their replays and adjoints, and
    /// for each differentiable kernel (enable_backward, weft's ABI) a backward
    /// entry "<symbol>_adj" taking the kernel's parameters, then one adjoint per
    /// parameter (KernelEntry::params lists both). Forward entries are not emitted.
    bool adjoint = false;
    /// static_asserts that every referenced external builtin's native function
    /// has exactly its registered signature (ModuleLoadOptions::check_native_signatures).
    bool native_signature_checks = false;
};

/// Generates the translation unit for `module` (which must be lowered).
/// Throws UserError for kernels the backend cannot compile (for example an
/// external_constant_params entry on the CPU), naming the kernel.
GeneratedSource generate_cpp(const kernel::ir::Module &module, const ResolvedBuildOptions &options, Backend backend,
                             const CodegenOptions &codegen = {});

/// The C++ spelling of a kernel type in generated code ("weft::vec3", "weft::array_t<weft::float32>").
std::string cpp_type(const Type &type);

} // namespace weft::codegen
