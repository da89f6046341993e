// The CUDA runtime layer (private to libweft): modules loaded from CUBIN or
// PTX images with the driver, their kernels (launches, attributes,
// occupancy), raw streams and events, and CUDA's DeviceRuntime (memory and
// streams for weft::Array and weft::Stream). Building the images is the
// pipeline's job and choosing them the host's (host/cuda_loading.hpp);
// applications use weft::Host, weft::CompiledModule, weft::Kernel,
// weft::Array and weft::Stream, which serve every device, and
// weft/runtime/cuda.hpp for what is CUDA's own (devices, context guard).
//
// Everything here goes through backend::CudaDriver (libcuda.so.1, loaded with
// dlopen on first use). Without a driver or device every entry point throws
// BackendError "CUDA driver not available: <reason>"; nothing here runs at
// static initialization, so the CPU path is unaffected. A failing driver call
// throws backend::CudaDriverError, whose message names the call.
//
// Contexts: every call works in the device's primary context, retained on
// first use of that device and kept for the life of the process. A call
// makes it current for its own duration only (CudaContextGuard): the
// caller's context (an OptiX or GL interop application's own) is current
// again when it returns.
//
// Launches are asynchronous (on the given stream, else the legacy default
// stream, with which the copies here synchronize). CudaModule::synchronize()
// waits for the device and reports failed expect_* checks.
#pragma once

#include "weft/backend/cuda.hpp"
#include "weft/registry/types.hpp"
#include "weft/runtime/array.hpp"
#include "weft/runtime/kernel_arg.hpp"
#include "weft/runtime/launch.hpp"
#include "weft/runtime/cuda.hpp"
#include "weft/runtime/stream.hpp"
#include "weft/support/log.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace weft {

class CudaModule;

/// What a CUDA image holds and how it was built, for CudaModule::load.
struct CudaImage {
    /// A kernel as the code generator described it.
    struct Kernel {
        std::string name;
        std::string key; // the decorator's name=, or ""
        std::string symbol;
        std::vector<KernelParam> params;
        int tid_dims = 0;
        bool external = false; // entry_point_abi='external_constant_params': never launched by weft
    };
    std::string module;
    std::string hash;
    int device = 0;
    int arch = 0;           // the architecture compiled for
    std::string kind;       // "cubin" or "ptx"
    std::string bytes;      // the image (PTX without a trailing NUL is fine)
    std::filesystem::path artifact_path;
    std::filesystem::path generated_source_path;
    bool from_cache = false;
    std::string origin;     // the source file, for messages
    std::vector<Kernel> kernels;
    /// Where debug-mode bounds failures are reported (default: stderr).
    Logger logger;
    /// An AOT artifact's check: the kernel signature digest its source makes
    /// now (codegen::kernel_signature_digest), which the image's
    /// weft_kernel_signatures must equal; "": not checked.
    std::string kernel_signatures;
    /// When the load began (load_ms counts from it); default: when CudaModule::load starts.
    std::optional<std::chrono::steady_clock::time_point> started;
};

/// A CUDA stream (cuStreamCreate) on a device; destroyed with the object.
class CudaStream {
public:
    explicit CudaStream(int device = 0, bool non_blocking = false);
    ~CudaStream();
    CudaStream(const CudaStream &) = delete;
    CudaStream &operator=(const CudaStream &) = delete;

    int device() const { return device_; }
    backend::CudaStream handle() const { return stream_; }
    void synchronize();
    /// Later work on this stream waits for `event` (cuStreamWaitEvent, this device's context current).
    void wait_event(backend::CudaEvent event);

private:
    int device_;
    backend::CudaStream stream_ = nullptr;
};

/// A CUDA event (cuEventCreate) on a device, with timing unless disabled.
/// With blocking_sync (CU_EVENT_BLOCKING_SYNC) a thread in synchronize()
/// sleeps until the event completes instead of spinning a core: what a fence
/// another thread waits on needs.
class CudaEvent {
public:
    explicit CudaEvent(int device = 0, bool timing = true, bool blocking_sync = false);
    ~CudaEvent();
    CudaEvent(const CudaEvent &) = delete;
    CudaEvent &operator=(const CudaEvent &) = delete;

    /// Records on `stream` (nullptr: the legacy default stream).
    void record(CudaStream *stream = nullptr);
    /// True when the work before the record has completed.
    bool query();
    void synchronize();
    /// Milliseconds from `start` to `end` (both recorded and completed; both timing).
    static float elapsed_ms(const CudaEvent &start, const CudaEvent &end);

    int device() const { return device_; }
    backend::CudaEvent handle() const { return event_; }

private:
    int device_;
    backend::CudaEvent event_ = nullptr;
};

/// An entry point of a loaded CUDA module, by its symbol.
class CudaEntry {
public:
    const std::string &symbol() const { return symbol_; }
    backend::CudaFunction handle() const { return function_; }
    /// Registers, static shared / const / local bytes, max threads per block, PTX and binary versions.
    backend::CudaFunctionAttributes attributes() const;
    /// The block size with the best occupancy (cuOccupancyMaxPotentialBlockSize, no dynamic shared memory).
    int suggested_block_size() const;

private:
    friend class CudaModule;
    friend class CudaKernel;
    int device_ = 0;
    std::string symbol_;
    backend::CudaFunction function_ = nullptr;
};

/// A kernel of a loaded CUDA module. Cheap to copy; valid while its module is loaded.
class CudaKernel {
public:
    const std::string &name() const;
    /// The decorator's name= ("" without one): kernel() finds the kernel by it too.
    const std::string &key() const;
    /// The extern "C" entry symbol ("<mangled>_cuda", or the name= of an external entry).
    const std::string &symbol() const;
    const std::vector<KernelParam> &params() const;
    /// entry_point_abi='external_constant_params': launched by an external runtime, never by weft.
    bool external() const;

    /// Launches over `dim` (1 to 4 dimensions) with `args` in parameter order,
    /// asynchronously on `stream` (nullptr: the legacy default stream).
    /// `block_size` threads per block (0: suggested_block_size()); the grid is
    /// ceil(size / block) blocks, at most 32 per multiprocessor (the kernel's
    /// grid-stride loop covers the rest). Arguments are checked and packed by
    /// weft::pack_args, as on the CPU; arrays must be on the module's device.
    /// Throws LaunchError for bad arguments or an external kernel.
    void launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args, int block_size = 256,
                CudaStream *stream = nullptr) const;
    /// The same on a weft::Stream of the module's device (Stream(Device)).
    /// The argument bytes are copied by the driver at the call; device arrays
    /// need not outlive it (freeing device memory waits for the device's work).
    void launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args, Stream &stream,
                int block_size = 256) const;

    const CudaEntry &function() const;
    backend::CudaFunctionAttributes attributes() const { return function().attributes(); }
    int suggested_block_size() const { return function().suggested_block_size(); }

    struct Impl;

private:
    friend class CudaModule;
    void launch_on(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args, int block_size,
                   backend::CudaStream stream) const;
    std::shared_ptr<const Impl> impl_;
};

/// A module loaded on a CUDA device (cuModuleLoadDataEx of the CUBIN, else the
/// PTX); unloaded with the object.
class CudaModule {
public:
    ~CudaModule();
    CudaModule(const CudaModule &) = delete;
    CudaModule &operator=(const CudaModule &) = delete;

    const std::string &name() const;
    /// The module hash of the target loaded (its CUBIN or PTX).
    const std::string &hash() const;
    /// The artifact came from the cache (or an AOT directory): nothing compiled.
    bool from_cache() const;
    /// The CUDA C++ compiled, for reference in diagnostics.
    const std::filesystem::path &generated_source_path() const;
    int device() const;
    /// Compute capability * 10 of the device (the arch compiled for, unless PTX of an older arch was used).
    int arch() const;
    /// "cubin" or "ptx": what was loaded.
    const std::string &image_kind() const;
    /// The artifact file in the cache that was loaded.
    const std::filesystem::path &artifact_path() const;
    double load_ms() const;

    /// Each name once (the instances of a generic kernel share theirs).
    std::vector<std::string> kernel_names() const;
    /// Throws UserError naming the module's kernels when there is no such
    /// kernel. For a generic kernel: its first instance (see kernels()).
    CudaKernel kernel(std::string_view name) const;
    /// Every kernel in module order, each instance of a generic kernel apart.
    std::vector<CudaKernel> kernels() const;
    /// Any entry point by symbol (external entries included); CudaDriverError when absent.
    CudaEntry function(const std::string &symbol) const;
    backend::CudaModule handle() const;

    /// Waits for all work on the module's device (cuCtxSynchronize) and throws
    /// LaunchError when expect_* checks of this module failed since the last call
    /// (the counter is reset).
    void synchronize() const;

    /// Loads `image` in its device's primary context (cuModuleLoadDataEx) and
    /// finds every kernel's entry. CudaDriverError when the driver rejects the
    /// image; UserError naming kernel, symbol and artifact when an entry is
    /// missing (an artifact built from another version of the source).
    static std::shared_ptr<CudaModule> load(const CudaImage &image);

    struct Impl;
    explicit CudaModule(std::unique_ptr<Impl> impl);

private:
    std::unique_ptr<Impl> impl_;
};

} // namespace weft
