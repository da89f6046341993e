// Kernel modules loaded on a device, and their kernels: one API for the CPU
// (the in-process Clang/ORC backend; launches across all cores) and CUDA
// devices (NVRTC; the driver), built by the pipeline (weft/pipeline/pipeline.hpp)
// and loaded by weft::Host.
#pragma once

#include "weft/build/build_options.hpp"
#include "weft/pipeline/load_options.hpp"
#include "weft/runtime/array.hpp"
#include "weft/runtime/kernel_arg.hpp"
#include "weft/runtime/launch.hpp"
#include "weft/runtime/stream.hpp"
#include "weft/runtime/struct_value.hpp"
#include "weft/support/error.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

class CompiledModule;

/// How a launch runs, beside its grid and arguments.
struct LaunchOptions {
    /// The stream the launch is ordered on (one of the module's device);
    /// nullptr: synchronous, finished (and its expect_* checks reported) when
    /// launch() returns.
    Stream *stream = nullptr;
    /// CUDA: threads per block (0: the occupancy calculator's choice). A tile
    /// kernel (Kernel::tiled(), Warp's launch_tiled) on any device: the lanes
    /// of each block, which block_dim() returns (0: default_tile_block_dim).
    /// Other CPU launches ignore it (their block_dim() is 1, as Warp's).
    int block_dim = 256;
};

/// A tiled launch's block_dim when LaunchOptions::block_dim is 0 (Warp's launch_tiled default).
constexpr int default_tile_block_dim = 256;

/// A kernel of a loaded module. Cheap to copy. It keeps its module's code
/// loaded (unloading or replacing the module in its host leaves it working);
/// launching it after its Host is destroyed throws LaunchError.
class Kernel {
public:
    const std::string &name() const;
    /// The parameters in order, with their types (a struct parameter's Type
    /// carries its layout: pass its bytes with KernelArg::value).
    const std::vector<KernelParam> &params() const;
    /// A zeroed value of struct parameter `param`'s type, to fill by field
    /// name (StructValue::set) and pass as that argument. UserError naming the
    /// kernel's parameters when it has no such parameter, or when the
    /// parameter is not a struct.
    StructValue make_struct(std::string_view param) const;
    /// Runs the kernel over `dim` (1 to 4 dimensions) with `args` in parameter
    /// order. Argument types are checked against the signature (a wrong dtype,
    /// ndim or native type names the parameter and both types). Throws
    /// LaunchError when an expect_* in the kernel failed during this launch.
    void launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args) const;
    /// The same on `stream` (nullptr: synchronous, as above): the arguments
    /// are checked and packed now (errors throw here), the kernel runs after
    /// the stream's earlier work, and this returns at once. On the CPU the
    /// packed arguments, and through them every Array argument's storage,
    /// stay alive until the kernel has run (see weft/runtime/stream.hpp);
    /// failed expect_* checks reach Stream::synchronize() as LaunchError.
    void launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args, Stream *stream) const;
    /// The launch for every device: arrays must be on the kernel's device.
    /// Synchronous without a stream (a failed expect_* throws LaunchError
    /// here); with one, asynchronous, and failed expect_* checks throw
    /// LaunchError from Stream::synchronize().
    void launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args,
                const LaunchOptions &options) const;
    /// The device the kernel runs on.
    Device device() const;
    /// The module it is compiled in: its file's, or for a module="unique"
    /// kernel its own ("<file module>.<kernel>"), with that module's hash.
    const std::string &module() const;
    const std::string &module_hash() const;
    /// How many values the kernel unpacks tid() into (`i, j = wp.tid()`: 2);
    /// a launch of a kernel with 2 or more has exactly that many dimensions.
    /// 0 when it uses tid() as one linear index, or not at all.
    int tid_dims() const;
    /// A tile kernel (it uses Warp's tile operations): a launch's grid counts
    /// blocks of LaunchOptions::block_dim lanes, and tid() is the block's index
    /// (Warp's launch_tiled).
    bool tiled() const;

    /// The adjoint launch (Warp's launch(adjoint=True)): runs the kernel's
    /// backward pass over `dim` with the forward `args` and one adjoint per
    /// parameter in `adj_args` (a gradient array for an array parameter, or
    /// a null_array_like() one for none; a value, usually zero, otherwise).
    /// Array gradients accumulate (+=). The first call builds the module's
    /// backward pass (weft::Tape calls this for each recorded launch).
    void launch_adjoint(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args,
                        const std::vector<KernelArg> &adj_args, const LaunchOptions &options = {}) const;
    /// The backward kernel itself: parameters are the kernel's, then "adj_<name>"
    /// for each. Builds the backward pass on first use; UserError when the kernel
    /// has none (enable_backward=False, or the module was loaded without backward).
    Kernel backward() const;

    struct Impl;

private:
    friend class CompiledModule;
    std::shared_ptr<const Impl> impl_;
};

/// A kernel module loaded on a device (Host::load_module). A handle: cheap to
/// copy, and the module's code stays loaded while a handle or one of its
/// kernels exists. Loading an unchanged module again gives the same module
/// (equal handles); a changed source or option gives a new one.
/// A file's kernels with module="unique" are each compiled as a module of
/// their own, with their own options and hash: the CompiledModule then offers
/// the kernels of all of them (Kernel::module says which holds one), and its
/// hash is a digest of theirs.
class CompiledModule {
public:
    const std::string &name() const;
    const std::string &hash() const;   // full-width module hash
    bool from_cache() const;           // the object came from the artifact cache
    /// The code was mapped from the shared object the cache keeps for the
    /// module (HostOptions::cpu_shared_objects), not linked into the JIT; for
    /// a file of several modules, all of them were.
    bool from_shared_object() const;
    double load_ms() const;            // check + codegen + (compile | cache read) + load
    const std::filesystem::path &artifact_path() const;         // the object, CUBIN or PTX in the cache
    const std::filesystem::path &generated_source_path() const; // for reference in diagnostics
    /// The file the module was loaded from, as given ("" for source text).
    const std::filesystem::path &source_path() const;
    /// The device it is loaded on (ModuleLoadOptions::device).
    Device device() const;
    /// Each kernel name once (the instances of a generic kernel share theirs).
    std::vector<std::string> kernel_names() const;
    /// The kernel of that function name, else of that name= key (Warp's
    /// kernel key). Throws UserError naming the module's kernels when there is none.
    /// A generic kernel gives its first instance; a launch picks the instance
    /// whose parameter types equal the arguments' (as Warp's launch does).
    Kernel kernel(std::string_view name) const;
    /// Every kernel in module order, each instance of a generic kernel apart.
    std::vector<Kernel> kernels() const;

    /// The same loaded module (not merely the same hash).
    bool operator==(const CompiledModule &other) const { return impl_ == other.impl_; }

    struct Impl;
    explicit CompiledModule(std::shared_ptr<Impl> impl);

private:
    std::shared_ptr<Impl> impl_;
};

/// Something that sees each launch a thread makes (weft::Tape records
/// through it): called on the launching thread after a launch was accepted
/// (arguments checked; synchronous launches finished without failed checks).
struct LaunchObserver {
    void (*launched)(void *context, const Kernel &kernel, const std::vector<std::int64_t> &dim,
                     const std::vector<KernelArg> &args, const LaunchOptions &options) = nullptr;
    void *context = nullptr;
};
/// Makes `observer` this thread's launch observer and returns the one it replaces.
LaunchObserver exchange_launch_observer(LaunchObserver observer);

} // namespace weft
