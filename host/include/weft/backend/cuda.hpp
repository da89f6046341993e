// CUDA backend: CUDA C++ source -> PTX or CUBIN with NVRTC (in process, no
// GPU or driver needed), and a thin wrapper of the CUDA driver API, loaded at
// run time with dlopen("libcuda.so.1"): weft never links the driver (nor its
// stub), so a binary with this backend starts, and its CPU path works, on a
// machine without one.
//
// Without a CUDA toolkit at configure time the library still builds:
// nvrtc_available() is false, compile_cuda / nvrtc_version /
// nvrtc_supported_archs / cuda_toolchain_identity throw BackendError
// "weft was built without CUDA (no CUDA toolkit at configure time)", and the
// driver is unavailable for the same reason.
//
// Thread safety: every function here may run on several threads at once
// (each compile owns its nvrtcProgram; the driver table is read-only once
// loaded, and the driver API itself is thread-safe).
//
// This header includes no CUDA header: handles are the driver's own opaque
// types (CUcontext is CUctx_st *, ...), so code that includes cuda.h can pass
// them on unchanged.
#pragma once

#include "weft/backend/cpu_compiler.hpp" // BackendError (shared by the backends)
#include "weft/support/error.hpp"

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// The driver's opaque handle types, as cuda.h declares them.
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;

namespace weft::backend {

// ---------------------------------------------------------------------------
// NVRTC

struct CudaCompileOptions {
    int arch = 90;      // compute capability * 10 (90 = 9.0); must be one of nvrtc_supported_archs()
    bool cubin = false; // false: PTX for compute_XX (the driver JIT-compiles it); true: CUBIN for sm_XX
    int opt_level = 3;  // 0..3: ptxas -O<n>, for CUBIN only (PTX is optimized by the driver's JIT,
                        // CU_JIT_OPTIMIZATION_LEVEL, when it is loaded); NVRTC has no front-end -O
    bool fast_math = false; // --use_fast_math (ftz, approximate division / sqrt / transcendentals, fmad)
    bool fmad = true;       // false: --fmad=false (no mul + add contraction into fma)
    bool line_info = false; // -lineinfo (.loc / .file in the PTX: profilers map code to the #line files)
    bool relocatable = false; // --relocatable-device-code=true: namespace-scope symbols stay .visible (an
                              // external runtime such as OptiX finds `params` in the PTX by name)
    std::vector<std::filesystem::path> include_dirs; // -I, in order: weft's runtime headers dir first, then plugin dirs
    std::vector<std::string> defines;                 // "NAME" or "NAME=VALUE" (-D)
    std::string source_name = "module.cu";            // the name NVRTC gives the source (diagnostics without #line)
    bool use_pch = false; // -pch: NVRTC's automatic in-memory PCH (per process) of the leading #includes.
                          // Pays off for heavy headers only; it never changes the code.
};

// One diagnostic of NVRTC. NVRTC reports *presumed* locations: under
// `#line 12 "kernel.py"` the file is "kernel.py", line 12. column is 1-based,
// from NVRTC's caret line (0 when it printed none, e.g. for a line too long to
// echo); file is empty (line 0) for a diagnostic without a location (a bad
// option). error is false for warnings and remarks. A template's
// "detected during instantiation of ... at line N of F" context lines are
// appended to message, one per line, indented.
struct CudaDiagnostic {
    std::string file;
    unsigned line = 0;
    unsigned column = 0;
    bool error = true;
    std::string message;
};

// "file:line:col: error: message" ("file:line: ..." without a column,
// "error: message" without a location; "warning" when !error), the CPU
// backend's format. NVRTC's own "file(line): error: ..." is normalized to it.
std::string format_diagnostic(const CudaDiagnostic &d);

// Parses an NVRTC program log into diagnostics (source echo and caret lines
// give the column; summary lines are dropped).
std::vector<CudaDiagnostic> parse_nvrtc_log(std::string_view log);

// Source that NVRTC rejected: the generated code, a plugin preamble or
// header, a missing #include. what() lists the errors as format_diagnostic
// lines (at most 20, then "... and N more errors"), never the source.
// diagnostics() holds everything NVRTC said, warnings included.
class CudaCompileError : public UserError {
public:
    CudaCompileError(std::string message, std::vector<CudaDiagnostic> diagnostics);
    const std::vector<CudaDiagnostic> &diagnostics() const noexcept { return diagnostics_; }

private:
    std::vector<CudaDiagnostic> diagnostics_;
};

// Whether weft was built with NVRTC (a CUDA toolkit at configure time).
bool nvrtc_available() noexcept;

// Compiles one CUDA C++17 translation unit: PTX text (no trailing NUL) or
// CUBIN bytes (an ELF image) per options.cubin. Entry points must be
// `extern "C" __global__`; namespace-scope variables need __device__ /
// __constant__ (NVRTC runs without -default-device). Throws CudaCompileError
// for errors in the source, BackendError for an unsupported arch, a bad
// option (the message quotes NVRTC) or an NVRTC failure. NVRTC's warnings are
// appended to *warnings when given.
std::string compile_cuda(std::string_view source, const CudaCompileOptions &options,
                         std::vector<CudaDiagnostic> *warnings = nullptr);

// "nvrtc <major>.<minor>" of the NVRTC library in use, e.g. "nvrtc 13.0".
std::string nvrtc_version();

// The real architectures NVRTC can compile for (compute capability * 10,
// ascending), e.g. 75 80 86 87 88 89 90 100 103 110 120 121 for NVRTC 13.0.
std::vector<int> nvrtc_supported_archs();

// Everything about the compiler and its flags that changes the PTX / CUBIN
// for a given source, as one line for a cache key: nvrtc_version(), then the
// NVRTC options minus include dirs, defines and PCH flags (those are hashed
// with the module), e.g.
//   "nvrtc 13.0 ptx --std=c++17 --gpu-architecture=compute_90"
//   "nvrtc 13.0 cubin --std=c++17 --gpu-architecture=sm_90 --ptxas-options=-O3 --use_fast_math"
// NVRTC patch releases (13.0.48 vs 13.0.88) are not told apart.
std::string cuda_toolchain_identity(const CudaCompileOptions &options);

// ---------------------------------------------------------------------------
// The CUDA driver API, loaded at run time

using CudaDevice = int;                   // CUdevice
using CudaDevicePtr = unsigned long long; // CUdeviceptr
using CudaContext = CUctx_st *;           // CUcontext
using CudaModule = CUmod_st *;            // CUmodule
using CudaFunction = CUfunc_st *;         // CUfunction
using CudaStream = CUstream_st *;         // CUstream (nullptr: the legacy default stream)
using CudaEvent = CUevent_st *;           // CUevent

// A driver call that failed. what(): "<call> failed: <CUDA_ERROR_NAME> (<description>)",
// e.g. "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_IMAGE (device kernel image is invalid)".
class CudaDriverError : public BackendError {
public:
    CudaDriverError(std::string call, int result, const std::string &message)
        : BackendError(message), call_(std::move(call)), result_(result) {}
    const std::string &call() const noexcept { return call_; }
    int result() const noexcept { return result_; } // the CUresult
private:
    std::string call_;
    int result_;
};

// Attributes of a kernel function (cuFuncGetAttribute).
struct CudaFunctionAttributes {
    int max_threads_per_block = 0;
    int shared_size_bytes = 0; // static shared memory
    int const_size_bytes = 0;
    int local_size_bytes = 0;
    int num_regs = 0;
    int ptx_version = 0;    // e.g. 90
    int binary_version = 0; // e.g. 90
};

// The process's CUDA driver: libcuda.so.1 opened with dlopen on the first
// instance() call (never at static initialization), every function fetched
// through cuGetProcAddress_v2 at a pinned ABI version, then cuInit(0).
// When any step fails, available() is false, unavailable_reason() says why
// (the dlerror text, "cuInit failed: CUDA_ERROR_NO_DEVICE (...)", ...) and every
// other member throws BackendError "CUDA driver not available: <reason>".
// The library is never closed.
//
// Members are one driver call each (named in the comment), checked: a
// failing call throws CudaDriverError. Calls that work on the current
// context need one set with set_current_context first (per thread).
class CudaDriver {
public:
    static CudaDriver &instance();
    // Loads a specific driver library (tests; a path or a soname for dlopen).
    explicit CudaDriver(const std::string &library);
    ~CudaDriver();
    CudaDriver(const CudaDriver &) = delete;
    CudaDriver &operator=(const CudaDriver &) = delete;

    bool available() const noexcept;
    const std::string &unavailable_reason() const noexcept;

    // "CUDA_ERROR_INVALID_IMAGE" / "device kernel image is invalid" for a CUresult (cuGetErrorName / String).
    std::string error_name(int result) const;
    std::string error_string(int result) const;

    int driver_version();                              // cuDriverGetVersion: 13000 for CUDA 13.0
    int device_count();                                // cuDeviceGetCount
    CudaDevice device(int ordinal);                    // cuDeviceGet
    std::string device_name(CudaDevice device);        // cuDeviceGetName
    int device_attribute(int attribute, CudaDevice device); // cuDeviceGetAttribute (a CUdevice_attribute)
    int compute_capability(CudaDevice device);         // major * 10 + minor (cuDeviceGetAttribute)
    std::size_t device_total_memory(CudaDevice device); // cuDeviceTotalMem

    CudaContext primary_context_retain(CudaDevice device); // cuDevicePrimaryCtxRetain
    void primary_context_release(CudaDevice device);       // cuDevicePrimaryCtxRelease
    void set_current_context(CudaContext context);         // cuCtxSetCurrent
    void push_context(CudaContext context);                // cuCtxPushCurrent
    CudaContext pop_context();                             // cuCtxPopCurrent
    CudaContext current_context();                         // cuCtxGetCurrent (nullptr: none)
    void context_synchronize();                            // cuCtxSynchronize (the current context)

    // cuModuleLoadDataEx: PTX (NUL-terminated) or CUBIN. A failure's message
    // carries the PTX JIT's error log ("ptxas application ptx input, line 12; error ...").
    CudaModule module_load_data(const void *image);
    void module_unload(CudaModule module);                 // cuModuleUnload
    CudaFunction module_get_function(CudaModule module, const char *name); // cuModuleGetFunction
    // cuModuleGetGlobal: address and size of a __device__ / __constant__ variable.
    std::pair<CudaDevicePtr, std::size_t> module_get_global(CudaModule module, const char *name);

    CudaDevicePtr mem_alloc(std::size_t bytes);                              // cuMemAlloc
    void mem_free(CudaDevicePtr ptr);                                        // cuMemFree
    void memcpy_htod(CudaDevicePtr dst, const void *src, std::size_t bytes); // cuMemcpyHtoD
    void memcpy_dtoh(void *dst, CudaDevicePtr src, std::size_t bytes);       // cuMemcpyDtoH
    void memset_d8(CudaDevicePtr dst, unsigned char value, std::size_t count); // cuMemsetD8
    // cuMemcpyHtoDAsync / cuMemcpyDtoHAsync: ordered on `stream`. With pageable host memory the driver
    // has read the source (HtoD) or written the destination (DtoH) when these return.
    void memcpy_htod_async(CudaDevicePtr dst, const void *src, std::size_t bytes, CudaStream stream);
    void memcpy_dtoh_async(void *dst, CudaDevicePtr src, std::size_t bytes, CudaStream stream);
    // cuMemcpyDtoD / cuMemcpyDtoDAsync: within a device, or between devices (unified addressing).
    void memcpy_dtod(CudaDevicePtr dst, CudaDevicePtr src, std::size_t bytes);
    void memcpy_dtod_async(CudaDevicePtr dst, CudaDevicePtr src, std::size_t bytes, CudaStream stream);
    std::pair<std::size_t, std::size_t> mem_get_info();                      // cuMemGetInfo: free, total

    // cuLaunchKernel: params[i] points at the value of parameter i.
    void launch_kernel(CudaFunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                       unsigned block_y, unsigned block_z, unsigned shared_bytes, CudaStream stream,
                       void **params);

    static constexpr unsigned stream_non_blocking = 1; // CU_STREAM_NON_BLOCKING
    CudaStream stream_create(unsigned flags = 0);      // cuStreamCreate
    void stream_synchronize(CudaStream stream);        // cuStreamSynchronize
    void stream_destroy(CudaStream stream);            // cuStreamDestroy
    void stream_wait_event(CudaStream stream, CudaEvent event); // cuStreamWaitEvent (flags 0)

    static constexpr unsigned event_blocking_sync = 1;  // CU_EVENT_BLOCKING_SYNC
    static constexpr unsigned event_disable_timing = 2; // CU_EVENT_DISABLE_TIMING
    CudaEvent event_create(unsigned flags = 0);         // cuEventCreate
    void event_record(CudaEvent event, CudaStream stream); // cuEventRecord
    bool event_query(CudaEvent event);                  // cuEventQuery: true when done, false while CUDA_ERROR_NOT_READY
    void event_synchronize(CudaEvent event);            // cuEventSynchronize
    float event_elapsed_ms(CudaEvent start, CudaEvent end); // cuEventElapsedTime
    void event_destroy(CudaEvent event);                // cuEventDestroy

    int function_attribute(int attribute, CudaFunction f); // cuFuncGetAttribute (a CUfunction_attribute)
    CudaFunctionAttributes function_attributes(CudaFunction f);
    // cuOccupancyMaxPotentialBlockSize (fixed dynamic shared memory):
    // {minimum grid size for full occupancy, block size}.
    std::pair<int, int> max_potential_block_size(CudaFunction f, std::size_t dynamic_shared_bytes = 0,
                                                 int block_size_limit = 0);

    struct Api; // the function table (lib/backend/cuda/driver_api.hpp)
    // The function table, for calls this class does not wrap; throws like any
    // member when the driver is unavailable.
    const Api &api() const;

private:
    const Api &require() const;
    void check(int result, const char *call) const;
    std::unique_ptr<Api> api_;
    void *library_ = nullptr;
    std::string unavailable_reason_;
};

} // namespace weft::backend
