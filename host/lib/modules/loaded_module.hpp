// Loaded modules and their kernels, on every device. A kernel is described
// once, by the pipeline's codegen::KernelEntry; what differs between devices
// is only how a compiled module's code is loaded and how a kernel of it runs,
// behind DeviceCode (cpu_code.cpp: JIT or shared-object code; cuda_code.cpp:
// driver modules). Both are made from a pipeline::Artifact directly.
#pragma once

#include "weft/codegen/cpp_emitter.hpp"
#include "weft/modules/compiled_module.hpp"
#include "weft/pipeline/pipeline.hpp"
#include "weft/runtime/thread_pool.hpp"
#include "weft/support/log.hpp"

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace weft {

class SharedObjects;

namespace modules {

/// The code of one compiled module loaded on one device.
class DeviceCode {
public:
    virtual ~DeviceCode() = default;
    /// Checks and packs `args` and runs kernel `k` (one of this code's) over
    /// `dim`: synchronously without options.stream (failed expect_* checks
    /// throw LaunchError), else ordered on the stream (they throw from its
    /// synchronize()). `k` keeps the module's code alive for queued work.
    virtual void launch(const std::shared_ptr<const Kernel::Impl> &k, const std::vector<std::int64_t> &dim,
                        const std::vector<KernelArg> &args, const LaunchOptions &options) const = 0;
    /// The kernel signature digest the code defines (codegen::kernel_signatures_symbol), "" without one.
    virtual std::string kernel_signatures() const = 0;
};

} // namespace modules

struct Kernel::Impl {
    codegen::KernelEntry entry;                  // as the pipeline generated it: the one description of a kernel
    std::size_t index = 0;                       // in its compiled module's kernels (and its code's)
    const CompiledModule::Impl *owner = nullptr; // alive as long as the Kernel handle (aliasing shared_ptr)
    std::weak_ptr<ThreadPool> pool;              // the host's: gone with the host
    Device device;
    bool overloaded = false; // an instance of a generic kernel with siblings of the same name

    const std::string &name() const { return entry.name; }
    const std::string &key() const { return entry.key; }
    bool external() const { return entry.abi == kernel::ir::EntryPointAbi::ExternalConstantParams; }
    /// The host's pool; LaunchError when the host is gone (no launch on any device then).
    std::shared_ptr<ThreadPool> live_pool() const;
};

struct CompiledModule::Impl {
    std::string name;
    std::string hash;
    std::filesystem::path source_path;
    bool from_cache = false;
    bool from_shared_object = false;
    double load_ms = 0;
    std::filesystem::path artifact_path;
    std::filesystem::path generated_source_path;
    Device device;
    Target target; // what was loaded (a file of several compiled modules: the first one's)
    std::unique_ptr<modules::DeviceCode> code;          // null for a file of several compiled modules
    std::vector<std::shared_ptr<Kernel::Impl>> kernels; // owned here only: no cycle with Kernel handles
    // A file of several compiled modules (module="unique" kernels): each of
    // them, owning its kernels' code; `kernels` then lists all of theirs.
    std::vector<std::shared_ptr<Impl>> modules;
    // The backward pass: a module of its own, built when a gradient is first needed.
    std::function<std::shared_ptr<Impl>()> build_backward;
    mutable std::shared_ptr<Impl> backward;
    mutable std::mutex backward_mutex;
};

namespace modules {

/// What loading code needs beside the artifact.
struct CodeContext {
    Logger logger;                     // where debug-mode bounds failures are reported
    std::string origin;                // the source file, for messages
    std::weak_ptr<ThreadPool> pool;    // the host's (CPU launches run on it)
    SharedObjects *shared = nullptr;   // CPU: map kept shared objects (and keep new ones); null: link the object
    const ArtifactCache *cache = nullptr;
    /// CPU: the object of the strided copy of the kernel with that
    /// strided_section, for a launch with a view that has gaps; empty: none.
    std::function<std::string(int section)> build_strided;
};

/// `artifact` loaded on `device` with a kernel per entry. CPU: backend::BackendError when the object does not link; CUDA:
/// backend::CudaDriverError when the driver refuses the image.
std::shared_ptr<CompiledModule::Impl> load_artifact(const pipeline::Artifact &artifact, Device device,
                                                    const CodeContext &context);

/// Throws BackendError naming both versions (and `context` first) when the
/// driver of CUDA device `ordinal` cannot run what this build's NVRTC makes
/// (PTX when `ptx`, else a CUBIN).
void require_driver_for(int ordinal, bool ptx, const std::string &context = "");

/// What `device` runs, in order of preference: the CPU target; on CUDA the
/// CUBIN for the device's architecture when NVRTC can build it, then PTX for
/// the newest architecture NVRTC knows up to it (the driver JIT-compiles it).
/// Checks the driver and the device (BackendError naming both versions).
std::vector<Target> targets_for(Device device);

/// The first of `candidates` (one module for each of targets_for's targets)
/// that realizes and loads: a CUBIN the driver refuses falls back to the
/// PTX. `first` is candidates.front() already realized, when given.
std::shared_ptr<CompiledModule::Impl> load_first(const pipeline::Pipeline &pipeline,
                                                 const std::vector<pipeline::GeneratedModule> &candidates, Device device,
                                                 const CodeContext &context, const pipeline::Artifact *first = nullptr);

/// What a file loads as: its one compiled module, or a module offering the
/// kernels of all it compiles to (module="unique" kernels). Each kernel stays
/// its own compiled module's: expect_* counters, backward pass, code.
std::shared_ptr<CompiledModule::Impl> combine(std::vector<std::shared_ptr<CompiledModule::Impl>> modules,
                                              const pipeline::ModuleSource &source);

/// The compiled modules of a loaded file, in order (itself when it is one).
std::vector<std::shared_ptr<CompiledModule::Impl>> parts_of(const std::shared_ptr<CompiledModule::Impl> &loaded);

/// Prints the load line ("Module <name> <hash> load on device ... took ... ms (...)") to stderr.
void report_load(const CompiledModule::Impl &m, const char *what);

} // namespace modules
} // namespace weft
