// CudaDriver: libcuda.so.1 through dlopen + cuGetProcAddress_v2, never
// linked (nor its stub): a binary with this backend starts without a driver.
// Nothing here runs before the first CudaDriver::instance() call.
#include "driver_api.hpp"
#include "internal.hpp"

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace weft::backend {

CudaDriver &CudaDriver::instance() {
    // Never destroyed: objects freeing device memory may outlive any static.
    static CudaDriver *const driver = new CudaDriver("libcuda.so.1");
    return *driver;
}

bool CudaDriver::available() const noexcept { return api_ != nullptr; }
const std::string &CudaDriver::unavailable_reason() const noexcept { return unavailable_reason_; }

const CudaDriver::Api &CudaDriver::require() const {
    if (!api_) throw BackendError("CUDA driver not available: " + unavailable_reason_);
    return *api_;
}

const CudaDriver::Api &CudaDriver::api() const { return require(); }

// The library stays open (dlclose of a driver is not safe); this only frees the table.
CudaDriver::~CudaDriver() = default;

#ifdef WEFT_HAVE_NVRTC

static_assert(std::is_same_v<CudaDevice, CUdevice>);
static_assert(std::is_same_v<CudaDevicePtr, CUdeviceptr>);
static_assert(std::is_same_v<CudaContext, CUcontext>);
static_assert(std::is_same_v<CudaModule, CUmodule>);
static_assert(std::is_same_v<CudaFunction, CUfunction>);
static_assert(std::is_same_v<CudaStream, CUstream>);
static_assert(std::is_same_v<CudaEvent, CUevent>);
static_assert(CudaDriver::stream_non_blocking == CU_STREAM_NON_BLOCKING);
static_assert(CudaDriver::event_blocking_sync == CU_EVENT_BLOCKING_SYNC);
static_assert(CudaDriver::event_disable_timing == CU_EVENT_DISABLE_TIMING);

namespace {

std::string describe(const CudaDriver::Api &api, CUresult result) {
    const char *name = nullptr, *text = nullptr;
    if (api.cuGetErrorName_v6000(result, &name) != CUDA_SUCCESS || !name)
        return "CUresult " + std::to_string(static_cast<int>(result));
    std::string out = name;
    if (api.cuGetErrorString_v6000(result, &text) == CUDA_SUCCESS && text) out += " (" + std::string(text) + ")";
    return out;
}

const char *status_name(CUdriverProcAddressQueryResult status) {
    switch (status) {
    case CU_GET_PROC_ADDRESS_SUCCESS: return "found";
    case CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND: return "symbol not found";
    case CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT: return "the driver is too old for this version";
    }
    return "unknown status";
}

} // namespace

CudaDriver::CudaDriver(const std::string &library) {
    dlerror();
    library_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library_) {
        const char *error = dlerror();
        unavailable_reason_ = error ? error : "dlopen(\"" + library + "\") failed";
        return;
    }
    void *symbol = dlsym(library_, "cuGetProcAddress_v2");
    if (!symbol) {
        unavailable_reason_ = library + " has no cuGetProcAddress_v2 (a CUDA driver older than 12.0, or not a CUDA driver)";
        return;
    }
    const auto get_proc = reinterpret_cast<PFN_cuGetProcAddress_v12000>(symbol);

    auto api = std::make_unique<Api>();
    bool ok = true;
    auto fetch = [&](const char *name, int version, void **slot) {
        if (!ok) return;
        CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        const CUresult result = get_proc(name, slot, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status);
        if (result == CUDA_SUCCESS && status == CU_GET_PROC_ADDRESS_SUCCESS && *slot) return;
        ok = false;
        unavailable_reason_ = "cuGetProcAddress(\"" + std::string(name) + "\", " + std::to_string(version) +
                              ") failed: " +
                              (result != CUDA_SUCCESS && api->cuGetErrorName_v6000 && api->cuGetErrorString_v6000
                                   ? describe(*api, result)
                                   : status_name(status));
    };
#define WEFT_CUDA_FETCH(name, version) fetch(#name, version, reinterpret_cast<void **>(&api->name##_v##version));
    WEFT_CUDA_DRIVER_FUNCTIONS(WEFT_CUDA_FETCH)
#undef WEFT_CUDA_FETCH
    if (!ok) return;

    if (const CUresult result = api->cuInit_v2000(0); result != CUDA_SUCCESS) {
        unavailable_reason_ = "cuInit failed: " + describe(*api, result);
        return;
    }
    api_ = std::move(api);
}

void CudaDriver::check(int result, const char *call) const {
    if (result == CUDA_SUCCESS) return;
    throw CudaDriverError(call, result, std::string(call) + " failed: " + describe(*api_, static_cast<CUresult>(result)));
}

std::string CudaDriver::error_name(int result) const {
    const char *name = nullptr;
    if (require().cuGetErrorName_v6000(static_cast<CUresult>(result), &name) != CUDA_SUCCESS || !name)
        return "CUresult " + std::to_string(result);
    return name;
}

std::string CudaDriver::error_string(int result) const {
    const char *text = nullptr;
    if (require().cuGetErrorString_v6000(static_cast<CUresult>(result), &text) != CUDA_SUCCESS || !text)
        return "unknown CUDA error " + std::to_string(result);
    return text;
}

int CudaDriver::driver_version() {
    int version = 0;
    check(require().cuDriverGetVersion_v2020(&version), "cuDriverGetVersion");
    return version;
}

int CudaDriver::device_count() {
    int count = 0;
    check(require().cuDeviceGetCount_v2000(&count), "cuDeviceGetCount");
    return count;
}

CudaDevice CudaDriver::device(int ordinal) {
    CUdevice device = 0;
    check(require().cuDeviceGet_v2000(&device, ordinal), "cuDeviceGet");
    return device;
}

std::string CudaDriver::device_name(CudaDevice device) {
    char name[256] = {};
    check(require().cuDeviceGetName_v2000(name, static_cast<int>(sizeof name - 1), device), "cuDeviceGetName");
    return name;
}

int CudaDriver::device_attribute(int attribute, CudaDevice device) {
    int value = 0;
    check(require().cuDeviceGetAttribute_v2000(&value, static_cast<CUdevice_attribute>(attribute), device),
          "cuDeviceGetAttribute");
    return value;
}

int CudaDriver::compute_capability(CudaDevice device) {
    return device_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) * 10 +
           device_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
}

std::size_t CudaDriver::device_total_memory(CudaDevice device) {
    std::size_t bytes = 0;
    check(require().cuDeviceTotalMem_v3020(&bytes, device), "cuDeviceTotalMem");
    return bytes;
}

CudaContext CudaDriver::primary_context_retain(CudaDevice device) {
    CUcontext context = nullptr;
    check(require().cuDevicePrimaryCtxRetain_v7000(&context, device), "cuDevicePrimaryCtxRetain");
    return context;
}

void CudaDriver::primary_context_release(CudaDevice device) {
    check(require().cuDevicePrimaryCtxRelease_v11000(device), "cuDevicePrimaryCtxRelease");
}

void CudaDriver::set_current_context(CudaContext context) {
    check(require().cuCtxSetCurrent_v4000(context), "cuCtxSetCurrent");
}

void CudaDriver::push_context(CudaContext context) {
    check(require().cuCtxPushCurrent_v4000(context), "cuCtxPushCurrent");
}

CudaContext CudaDriver::pop_context() {
    CUcontext context = nullptr;
    check(require().cuCtxPopCurrent_v4000(&context), "cuCtxPopCurrent");
    return context;
}

CudaContext CudaDriver::current_context() {
    CUcontext context = nullptr;
    check(require().cuCtxGetCurrent_v4000(&context), "cuCtxGetCurrent");
    return context;
}

void CudaDriver::context_synchronize() { check(require().cuCtxSynchronize_v2000(), "cuCtxSynchronize"); }

CudaModule CudaDriver::module_load_data(const void *image) {
    // Without a log buffer a PTX the JIT rejects is only CUDA_ERROR_INVALID_PTX.
    char error_log[8192] = {};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {error_log, reinterpret_cast<void *>(static_cast<std::uintptr_t>(sizeof error_log))};
    CUmodule module = nullptr;
    const CUresult result = require().cuModuleLoadDataEx_v2010(&module, image, 2, options, values);
    if (result == CUDA_SUCCESS) return module;
    std::string log(error_log, strnlen(error_log, sizeof error_log));
    while (!log.empty() && (log.back() == '\n' || log.back() == ' ')) log.pop_back();
    std::string message = "cuModuleLoadDataEx failed: " + describe(*api_, result);
    if (!log.empty()) message += "\nJIT log:\n" + log;
    throw CudaDriverError("cuModuleLoadDataEx", result, message);
}

void CudaDriver::module_unload(CudaModule module) { check(require().cuModuleUnload_v2000(module), "cuModuleUnload"); }

CudaFunction CudaDriver::module_get_function(CudaModule module, const char *name) {
    CUfunction function = nullptr;
    check(require().cuModuleGetFunction_v2000(&function, module, name), "cuModuleGetFunction");
    return function;
}

std::pair<CudaDevicePtr, std::size_t> CudaDriver::module_get_global(CudaModule module, const char *name) {
    CUdeviceptr ptr = 0;
    std::size_t bytes = 0;
    check(require().cuModuleGetGlobal_v3020(&ptr, &bytes, module, name), "cuModuleGetGlobal");
    return {ptr, bytes};
}

CudaDevicePtr CudaDriver::mem_alloc(std::size_t bytes) {
    CUdeviceptr ptr = 0;
    check(require().cuMemAlloc_v3020(&ptr, bytes), "cuMemAlloc");
    return ptr;
}

void CudaDriver::mem_free(CudaDevicePtr ptr) { check(require().cuMemFree_v3020(ptr), "cuMemFree"); }

void CudaDriver::memcpy_htod(CudaDevicePtr dst, const void *src, std::size_t bytes) {
    check(require().cuMemcpyHtoD_v3020(dst, src, bytes), "cuMemcpyHtoD");
}

void CudaDriver::memcpy_dtoh(void *dst, CudaDevicePtr src, std::size_t bytes) {
    check(require().cuMemcpyDtoH_v3020(dst, src, bytes), "cuMemcpyDtoH");
}

void CudaDriver::memset_d8(CudaDevicePtr dst, unsigned char value, std::size_t count) {
    check(require().cuMemsetD8_v3020(dst, value, count), "cuMemsetD8");
}

void CudaDriver::memcpy_htod_async(CudaDevicePtr dst, const void *src, std::size_t bytes, CudaStream stream) {
    check(require().cuMemcpyHtoDAsync_v3020(dst, src, bytes, stream), "cuMemcpyHtoDAsync");
}

void CudaDriver::memcpy_dtoh_async(void *dst, CudaDevicePtr src, std::size_t bytes, CudaStream stream) {
    check(require().cuMemcpyDtoHAsync_v3020(dst, src, bytes, stream), "cuMemcpyDtoHAsync");
}

void CudaDriver::memcpy_dtod(CudaDevicePtr dst, CudaDevicePtr src, std::size_t bytes) {
    check(require().cuMemcpyDtoD_v3020(dst, src, bytes), "cuMemcpyDtoD");
}

void CudaDriver::memcpy_dtod_async(CudaDevicePtr dst, CudaDevicePtr src, std::size_t bytes, CudaStream stream) {
    check(require().cuMemcpyDtoDAsync_v3020(dst, src, bytes, stream), "cuMemcpyDtoDAsync");
}

std::pair<std::size_t, std::size_t> CudaDriver::mem_get_info() {
    std::size_t free = 0, total = 0;
    check(require().cuMemGetInfo_v3020(&free, &total), "cuMemGetInfo");
    return {free, total};
}

void CudaDriver::launch_kernel(CudaFunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                               unsigned block_y, unsigned block_z, unsigned shared_bytes, CudaStream stream,
                               void **params) {
    check(require().cuLaunchKernel_v4000(f, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes, stream,
                                         params, nullptr),
          "cuLaunchKernel");
}

CudaStream CudaDriver::stream_create(unsigned flags) {
    CUstream stream = nullptr;
    check(require().cuStreamCreate_v2000(&stream, flags), "cuStreamCreate");
    return stream;
}

void CudaDriver::stream_synchronize(CudaStream stream) {
    check(require().cuStreamSynchronize_v2000(stream), "cuStreamSynchronize");
}

void CudaDriver::stream_destroy(CudaStream stream) {
    check(require().cuStreamDestroy_v4000(stream), "cuStreamDestroy");
}

void CudaDriver::stream_wait_event(CudaStream stream, CudaEvent event) {
    check(require().cuStreamWaitEvent_v3020(stream, event, 0), "cuStreamWaitEvent");
}

CudaEvent CudaDriver::event_create(unsigned flags) {
    CUevent event = nullptr;
    check(require().cuEventCreate_v2000(&event, flags), "cuEventCreate");
    return event;
}

void CudaDriver::event_record(CudaEvent event, CudaStream stream) {
    check(require().cuEventRecord_v2000(event, stream), "cuEventRecord");
}

bool CudaDriver::event_query(CudaEvent event) {
    const CUresult result = require().cuEventQuery_v2000(event);
    if (result == CUDA_ERROR_NOT_READY) return false;
    check(result, "cuEventQuery");
    return true;
}

void CudaDriver::event_synchronize(CudaEvent event) {
    check(require().cuEventSynchronize_v2000(event), "cuEventSynchronize");
}

float CudaDriver::event_elapsed_ms(CudaEvent start, CudaEvent end) {
    float ms = 0;
    check(require().cuEventElapsedTime_v2000(&ms, start, end), "cuEventElapsedTime");
    return ms;
}

void CudaDriver::event_destroy(CudaEvent event) { check(require().cuEventDestroy_v4000(event), "cuEventDestroy"); }

int CudaDriver::function_attribute(int attribute, CudaFunction f) {
    int value = 0;
    check(require().cuFuncGetAttribute_v2020(&value, static_cast<CUfunction_attribute>(attribute), f),
          "cuFuncGetAttribute");
    return value;
}

CudaFunctionAttributes CudaDriver::function_attributes(CudaFunction f) {
    CudaFunctionAttributes a;
    a.max_threads_per_block = function_attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
    a.shared_size_bytes = function_attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
    a.const_size_bytes = function_attribute(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, f);
    a.local_size_bytes = function_attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f);
    a.num_regs = function_attribute(CU_FUNC_ATTRIBUTE_NUM_REGS, f);
    a.ptx_version = function_attribute(CU_FUNC_ATTRIBUTE_PTX_VERSION, f);
    a.binary_version = function_attribute(CU_FUNC_ATTRIBUTE_BINARY_VERSION, f);
    return a;
}

std::pair<int, int> CudaDriver::max_potential_block_size(CudaFunction f, std::size_t dynamic_shared_bytes,
                                                         int block_size_limit) {
    int min_grid = 0, block = 0;
    check(require().cuOccupancyMaxPotentialBlockSize_v6050(&min_grid, &block, f, nullptr, dynamic_shared_bytes,
                                                           block_size_limit),
          "cuOccupancyMaxPotentialBlockSize");
    return {min_grid, block};
}

#else // !WEFT_HAVE_NVRTC: no cuda.h; the driver is never available.

CudaDriver::CudaDriver(const std::string &) {
    unavailable_reason_ = cuda::no_toolkit_message;
    (void)library_; // never opened
}

void CudaDriver::check(int, const char *) const { require(); }
std::string CudaDriver::error_name(int) const { return require(), std::string(); }
std::string CudaDriver::error_string(int) const { return require(), std::string(); }
int CudaDriver::driver_version() { return require(), 0; }
int CudaDriver::device_count() { return require(), 0; }
CudaDevice CudaDriver::device(int) { return require(), 0; }
std::string CudaDriver::device_name(CudaDevice) { return require(), std::string(); }
int CudaDriver::device_attribute(int, CudaDevice) { return require(), 0; }
int CudaDriver::compute_capability(CudaDevice) { return require(), 0; }
std::size_t CudaDriver::device_total_memory(CudaDevice) { return require(), 0; }
CudaContext CudaDriver::primary_context_retain(CudaDevice) { return require(), nullptr; }
void CudaDriver::primary_context_release(CudaDevice) { require(); }
void CudaDriver::set_current_context(CudaContext) { require(); }
void CudaDriver::push_context(CudaContext) { require(); }
CudaContext CudaDriver::pop_context() { return require(), nullptr; }
void CudaDriver::push_context(CudaContext context) {
    check(require().cuCtxPushCurrent_v4000(context), "cuCtxPushCurrent");
}

CudaContext CudaDriver::pop_context() {
    CUcontext context = nullptr;
    check(require().cuCtxPopCurrent_v4000(&context), "cuCtxPopCurrent");
    return context;
}

CudaContext CudaDriver::current_context() { return require(), nullptr; }
void CudaDriver::context_synchronize() { require(); }
CudaModule CudaDriver::module_load_data(const void *) { return require(), nullptr; }
void CudaDriver::module_unload(CudaModule) { require(); }
CudaFunction CudaDriver::module_get_function(CudaModule, const char *) { return require(), nullptr; }
std::pair<CudaDevicePtr, std::size_t> CudaDriver::module_get_global(CudaModule, const char *) {
    return require(), std::pair<CudaDevicePtr, std::size_t>();
}
CudaDevicePtr CudaDriver::mem_alloc(std::size_t) { return require(), 0; }
void CudaDriver::mem_free(CudaDevicePtr) { require(); }
void CudaDriver::memcpy_htod(CudaDevicePtr, const void *, std::size_t) { require(); }
void CudaDriver::memcpy_dtoh(void *, CudaDevicePtr, std::size_t) { require(); }
void CudaDriver::memset_d8(CudaDevicePtr, unsigned char, std::size_t) { require(); }
void CudaDriver::memcpy_htod_async(CudaDevicePtr, const void *, std::size_t, CudaStream) { require(); }
void CudaDriver::memcpy_dtoh_async(void *, CudaDevicePtr, std::size_t, CudaStream) { require(); }
void CudaDriver::memcpy_dtod(CudaDevicePtr, CudaDevicePtr, std::size_t) { require(); }
void CudaDriver::memcpy_dtod_async(CudaDevicePtr, CudaDevicePtr, std::size_t, CudaStream) { require(); }
std::pair<std::size_t, std::size_t> CudaDriver::mem_get_info() { return require(), std::pair<std::size_t, std::size_t>(); }
void CudaDriver::launch_kernel(CudaFunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               CudaStream, void **) {
    require();
}
CudaStream CudaDriver::stream_create(unsigned) { return require(), nullptr; }
void CudaDriver::stream_synchronize(CudaStream) { require(); }
void CudaDriver::stream_destroy(CudaStream) { require(); }
void CudaDriver::stream_wait_event(CudaStream, CudaEvent) { require(); }
CudaEvent CudaDriver::event_create(unsigned) { return require(), nullptr; }
void CudaDriver::event_record(CudaEvent, CudaStream) { require(); }
bool CudaDriver::event_query(CudaEvent) { return require(), false; }
void CudaDriver::event_synchronize(CudaEvent) { require(); }
float CudaDriver::event_elapsed_ms(CudaEvent, CudaEvent) { return require(), 0.0f; }
void CudaDriver::event_destroy(CudaEvent) { require(); }
int CudaDriver::function_attribute(int, CudaFunction) { return require(), 0; }
CudaFunctionAttributes CudaDriver::function_attributes(CudaFunction) { return require(), CudaFunctionAttributes(); }
std::pair<int, int> CudaDriver::max_potential_block_size(CudaFunction, std::size_t, int) {
    return require(), std::pair<int, int>();
}

#endif

} // namespace weft::backend
