// Kernel modules on a CUDA device: device arrays, modules compiled ahead of
// time by NVRTC (Host::compile_aot) and loaded with the driver, launches,
// streams, events, kernel attributes and occupancy.
//
// Everything here goes through backend::CudaDriver (libcuda.so.1, loaded with
// dlopen on first use). Without a driver or device every entry point throws
// BackendError "CUDA driver not available: <reason>"; nothing here runs at
// static initialization, so the CPU path is unaffected. A failing driver call
// throws backend::CudaDriverError, whose message names the call.
//
// Contexts: every call works in the device's primary context, retained on
// first use of that device and kept for the life of the process; each call
// makes it current on the calling thread.
//
// Launches are asynchronous (on the given stream, else the legacy default
// stream, with which the copies here synchronize). CudaModule::synchronize()
// waits for the device and reports failed expect_* checks.
#pragma once

#include "weft/backend/cuda.hpp"
#include "weft/build/build_options.hpp"
#include "weft/host/compiled_module.hpp"
#include "weft/pipeline/load_options.hpp"
#include "weft/registry/types.hpp"
#include "weft/runtime/array.hpp"
#include "weft/runtime/kernel_arg.hpp"
#include "weft/runtime/launch.hpp"
#include "weft/runtime/stream.hpp"

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

class Host;
class CudaModule;
namespace detail {
struct CudaLoader; // fills modules and entries in (cuda_module.cpp)
}

/// The number of CUDA devices; 0 without a driver (never throws).
int cuda_device_count() noexcept;
/// Why CUDA cannot be used here ("" when a driver sees at least one device).
std::string cuda_unavailable_reason();
/// Compute capability * 10 of device `device` (e.g. 90). Throws BackendError
/// without a driver and UserError for a device index the driver does not have.
int cuda_compute_capability(int device);

/// A 1-4 dimensional, contiguous row-major array of `dtype` elements in the
/// memory of CUDA device `device` (cuMemAlloc). Copies share the allocation
/// (like weft::Array); the last one frees it (cuMemFree). A new array is
/// zero-filled. Element bytes are weft's layout, copied byte-exactly.
class DeviceArray {
public:
    static DeviceArray zeros(int device, Type dtype, std::vector<std::int64_t> shape);
    /// A device copy of `host` (any view: its elements are packed row-major).
    static DeviceArray from_host(int device, const Array &host);
    /// A new host array with a copy of the elements (synchronous).
    Array to_host() const;
    /// Overwrites the elements from `host` (same dtype and shape; synchronous).
    void copy_from_host(const Array &host);
    /// The same, ordered on `stream` (a CUDA stream of this array's device;
    /// cuMemcpyHtoDAsync). weft's host arrays are pageable memory, so the
    /// driver has read `host` when this returns.
    void copy_from_host(const Array &host, Stream &stream);
    /// Copies the elements into `host` (same dtype and shape, contiguous),
    /// ordered on `stream` (cuMemcpyDtoHAsync; into pageable memory the driver
    /// returns once the copy is done).
    void copy_to_host(Array &host, Stream &stream) const;

    int device() const { return device_; }
    const Type &dtype() const { return dtype_; }
    int ndim() const { return static_cast<int>(shape_.size()); }
    const std::vector<std::int64_t> &shape() const { return shape_; }
    /// Byte strides (contiguous row-major).
    const std::vector<std::int64_t> &strides() const { return strides_; }
    std::int64_t size() const { return size_; }
    std::size_t nbytes() const { return static_cast<std::size_t>(size_) * static_cast<std::size_t>(dtype_.size()); }
    /// The CUdeviceptr of element 0 (0 for an empty array).
    backend::CudaDevicePtr data() const;
    /// This array's kernel type: Type::array(dtype(), ndim()).
    Type type() const { return Type::array(dtype_, ndim()); }

    struct Allocation;

private:
    // Both copy_from_host forms: synchronous when `stream` is null.
    void upload(const Array &host, const backend::CudaStream *stream);
    DeviceArray() = default;
    int device_ = 0;
    Type dtype_;
    std::vector<std::int64_t> shape_;
    std::vector<std::int64_t> strides_;
    std::int64_t size_ = 0;
    std::shared_ptr<Allocation> storage_;
};

/// One argument of a CUDA launch: a DeviceArray or a value (the types of
/// KernelArg's constructors; checked exactly, no promotion).
class CudaArg {
public:
    CudaArg(DeviceArray array);
    /// A value (a KernelArg holding a host Array is rejected at launch: copy it
    /// to the device with DeviceArray::from_host).
    CudaArg(KernelArg value);
    CudaArg(float v) : CudaArg(KernelArg(v)) {}
    CudaArg(double v) : CudaArg(KernelArg(v)) {}
    CudaArg(int v) : CudaArg(KernelArg(v)) {}
    CudaArg(std::int64_t v) : CudaArg(KernelArg(v)) {}
    CudaArg(std::uint32_t v) : CudaArg(KernelArg(v)) {}
    CudaArg(std::uint64_t v) : CudaArg(KernelArg(v)) {}
    CudaArg(bool v) : CudaArg(KernelArg(v)) {}
    template <class T> CudaArg(T *) = delete;
    /// A host array is not a device argument.
    CudaArg(const Array &) = delete;

    static CudaArg value(Type type, const void *bytes, std::size_t size) {
        return CudaArg(KernelArg::value(std::move(type), bytes, size));
    }
    template <class T> static CudaArg of(Type type, const T &v) { return CudaArg(KernelArg::of(std::move(type), v)); }

    bool is_array() const { return array_.has_value(); }
    const DeviceArray &array() const; // UserError for a value
    const KernelArg &value() const;   // UserError for an array
    /// The argument's kernel type.
    Type type() const;

private:
    std::optional<DeviceArray> array_;
    std::optional<KernelArg> value_;
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
class CudaEvent {
public:
    explicit CudaEvent(int device = 0, bool timing = true);
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
    friend struct detail::CudaLoader;
    int device_ = 0;
    std::string symbol_;
    backend::CudaFunction function_ = nullptr;
};

/// A kernel of a loaded CUDA module. Cheap to copy; valid while its module is loaded.
class CudaKernel {
public:
    const std::string &name() const;
    /// The extern "C" entry symbol ("<mangled>_cuda", or the name= of an external entry).
    const std::string &symbol() const;
    const std::vector<KernelParam> &params() const;
    /// entry_point_abi='external_constant_params': launched by an external runtime, never by weft.
    bool external() const;

    /// Launches over `dim` (1 to 4 dimensions) with `args` in parameter order,
    /// asynchronously on `stream` (nullptr: the legacy default stream).
    /// `block_size` threads per block (0: suggested_block_size()); the grid is
    /// ceil(size / block) blocks, at most 32 per multiprocessor (the kernel's
    /// grid-stride loop covers the rest). Arguments are checked as
    /// weft::pack_args checks them; device arrays must be on the module's
    /// device. Throws LaunchError for bad arguments or an external kernel.
    void launch(const std::vector<std::int64_t> &dim, const std::vector<CudaArg> &args, int block_size = 256,
                CudaStream *stream = nullptr) const;
    /// The same on a weft::Stream of the module's device (make_cuda_stream,
    /// weft/host/cuda_stream.hpp). The argument bytes are copied by the
    /// driver at the call; device arrays need not outlive it (freeing device
    /// memory waits for the device's work).
    void launch(const std::vector<std::int64_t> &dim, const std::vector<CudaArg> &args, Stream &stream,
                int block_size = 256) const;

    const CudaEntry &function() const;
    backend::CudaFunctionAttributes attributes() const { return function().attributes(); }
    int suggested_block_size() const { return function().suggested_block_size(); }

    struct Impl;

private:
    friend class CudaModule;
    void launch_on(const std::vector<std::int64_t> &dim, const std::vector<CudaArg> &args, int block_size,
                   backend::CudaStream stream) const;
    std::shared_ptr<const Impl> impl_;
};

/// A module loaded on a CUDA device (cuModuleLoadData of the CUBIN, else the
/// PTX); unloaded with the object.
class CudaModule {
public:
    ~CudaModule();
    CudaModule(const CudaModule &) = delete;
    CudaModule &operator=(const CudaModule &) = delete;

    const std::string &name() const;
    /// The module hash of the target loaded (its CUBIN or PTX).
    const std::string &hash() const;
    int device() const;
    /// Compute capability * 10 of the device (the arch compiled for, unless PTX of an older arch was used).
    int arch() const;
    /// "cubin" or "ptx": what was loaded.
    const std::string &image_kind() const;
    /// The artifact file in the cache that was loaded.
    const std::filesystem::path &artifact_path() const;
    double load_ms() const;

    std::vector<std::string> kernel_names() const;
    /// Throws UserError naming the module's kernels when there is no such kernel.
    CudaKernel kernel(std::string_view name) const;
    /// Any entry point by symbol (external entries included); CudaDriverError when absent.
    CudaEntry function(const std::string &symbol) const;
    backend::CudaModule handle() const;

    /// Waits for all work on the module's device (cuCtxSynchronize) and throws
    /// LaunchError when expect_* checks of this module failed since the last call
    /// (the counter is reset).
    void synchronize() const;

    struct Impl;
    explicit CudaModule(std::unique_ptr<Impl> impl);

private:
    friend struct detail::CudaLoader;
    std::unique_ptr<Impl> impl_;
};

/// Compiles `file` for CUDA device `device` with host.compile_aot (a CUBIN for
/// the device's compute capability, from the artifact cache when there) and
/// loads it in the device's primary context; when the CUBIN cannot be loaded,
/// or NVRTC cannot compile for this architecture, PTX (which needs a driver at
/// least as new as NVRTC). The module is kept with the host's CUDA modules
/// (see release_cuda_modules) and the reference stays valid until then, or
/// until Host::unload_module of its name. Loading an unchanged module again
/// (same name, device and hash) returns the kept one; a changed one is kept
/// beside it. The same pipeline run as Host::load_module: the front end and
/// codegen run once per call, and the module's name and hash do not depend
/// on the path of `file`.
/// Throws BackendError "CUDA driver not available: ..." without a driver.
CudaModule &load_cuda_module(Host &host, const std::filesystem::path &file, int device = 0,
                             ModuleLoadOptions options = {});

/// Loads module `file` onto CUDA device `device` from an AOT directory that
/// Host::compile_aot (or `weft build --output-dir`) filled: the CUBIN for the
/// device's compute capability, else the newest PTX not newer than it (see
/// find_aot_artifact). Nothing compiles; `file` (with the host's plugins
/// loaded) gives the kernel signatures, and an artifact built from another
/// version of it is rejected by name. Kept by the host like load_cuda_module.
/// Throws UserError listing every path tried when no artifact fits, and
/// BackendError "CUDA driver not available: ..." without a driver.
CudaModule &load_aot(Host &host, const std::filesystem::path &file, const std::filesystem::path &dir, int device = 0);

/// Unloads every CUDA module the host keeps now (the host also unloads them
/// when destroyed, before its CPU modules and plugins).
void release_cuda_modules(Host &host);

} // namespace weft
