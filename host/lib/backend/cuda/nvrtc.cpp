// compile_cuda: CUDA C++ in memory -> NVRTC -> PTX or CUBIN. One
// nvrtcProgram per call (NVRTC is thread-safe across programs). Built
// without a CUDA toolkit, every entry point throws BackendError.
#include "internal.hpp"

#ifdef WEFT_HAVE_NVRTC
#include <nvrtc.h>
#endif

#include <algorithm>

namespace weft::backend {

#ifdef WEFT_HAVE_NVRTC

namespace {

void check(nvrtcResult result, const char *call) {
    if (result != NVRTC_SUCCESS) throw BackendError(std::string(call) + " failed: " + nvrtcGetErrorString(result));
}

struct Program {
    nvrtcProgram handle = nullptr;
    Program() = default;
    Program(const Program &) = delete;
    Program &operator=(const Program &) = delete;
    ~Program() {
        if (handle) nvrtcDestroyProgram(&handle);
    }
};

std::string arch_name(const CudaCompileOptions &options) {
    return (options.cubin ? "sm_" : "compute_") + std::to_string(options.arch);
}

// The options that change the generated code (all but -I, -D and the PCH
// flags): what the identity names, in the order NVRTC gets them.
std::vector<std::string> code_options(const CudaCompileOptions &options) {
    std::vector<std::string> args{"--std=c++17", "--gpu-architecture=" + arch_name(options)};
    if (options.cubin) args.push_back("--ptxas-options=-O" + std::to_string(options.opt_level));
    if (options.fast_math) args.push_back("--use_fast_math");
    if (!options.fmad) args.push_back("--fmad=false");
    if (options.line_info) args.push_back("-lineinfo");
    if (options.relocatable) args.push_back("--relocatable-device-code=true");
    return args;
}

void validate(const CudaCompileOptions &options) {
    const std::vector<int> archs = nvrtc_supported_archs();
    if (std::find(archs.begin(), archs.end(), options.arch) == archs.end()) {
        std::string list;
        for (int a : archs) list += (list.empty() ? "" : " ") + std::to_string(a);
        throw BackendError(nvrtc_version() + " cannot compile for CUDA architecture " + std::to_string(options.arch) +
                           " (" + arch_name(options) + "); it supports " + list);
    }
    if (options.opt_level < 0 || options.opt_level > 3)
        throw BackendError("CUDA opt_level must be 0..3, not " + std::to_string(options.opt_level));
}

} // namespace

bool nvrtc_available() noexcept { return true; }

std::string nvrtc_version() {
    static const std::string version = [] {
        int major = 0, minor = 0;
        check(nvrtcVersion(&major, &minor), "nvrtcVersion");
        return "nvrtc " + std::to_string(major) + "." + std::to_string(minor);
    }();
    return version;
}

std::vector<int> nvrtc_supported_archs() {
    static const std::vector<int> archs = [] {
        int count = 0;
        check(nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
        std::vector<int> list(static_cast<std::size_t>(std::max(count, 0)));
        if (!list.empty()) check(nvrtcGetSupportedArchs(list.data()), "nvrtcGetSupportedArchs");
        std::sort(list.begin(), list.end());
        return list;
    }();
    return archs;
}

std::string cuda_toolchain_identity(const CudaCompileOptions &options) {
    std::string id = nvrtc_version() + (options.cubin ? " cubin" : " ptx");
    for (const std::string &arg : code_options(options)) id += ' ' + arg;
    return id;
}

std::string compile_cuda(std::string_view source, const CudaCompileOptions &options,
                         std::vector<CudaDiagnostic> *warnings) {
    validate(options);
    std::vector<std::string> args = code_options(options);
    for (const auto &dir : options.include_dirs) args.push_back("-I" + dir.string());
    for (const std::string &define : options.defines) args.push_back("-D" + define);
    if (options.use_pch) {
        args.emplace_back("-pch");
        args.emplace_back("--pch-messages=false");
    }
    std::vector<const char *> argv;
    argv.reserve(args.size());
    for (const std::string &arg : args) argv.push_back(arg.c_str());

    // nvrtcCreateProgram takes a NUL-terminated string.
    const std::string text(source);
    Program program;
    check(nvrtcCreateProgram(&program.handle, text.c_str(), options.source_name.c_str(), 0, nullptr, nullptr),
          "nvrtcCreateProgram");
    const nvrtcResult result = nvrtcCompileProgram(program.handle, static_cast<int>(argv.size()), argv.data());

    std::size_t log_size = 0;
    check(nvrtcGetProgramLogSize(program.handle, &log_size), "nvrtcGetProgramLogSize");
    std::string log(log_size, '\0');
    if (log_size > 0) check(nvrtcGetProgramLog(program.handle, log.data()), "nvrtcGetProgramLog");
    while (!log.empty() && log.back() == '\0') log.pop_back();

    if (result == NVRTC_ERROR_COMPILATION) throw cuda::make_compile_error(log, options.source_name);
    if (result != NVRTC_SUCCESS) {
        // A rejected option (a define or include dir NVRTC cannot parse, or
        // an NVRTC that lacks a flag weft passes) or an NVRTC failure.
        std::string message = "NVRTC failed: " + std::string(nvrtcGetErrorString(result));
        const auto first = log.find_first_not_of(" \n");
        if (first != std::string::npos) message += ": " + log.substr(first, log.find_last_not_of(" \n") - first + 1);
        throw BackendError(message);
    }
    if (warnings) {
        for (CudaDiagnostic &d : parse_nvrtc_log(log))
            if (!d.error) warnings->push_back(std::move(d));
    }

    std::size_t size = 0;
    std::string out;
    if (options.cubin) {
        check(nvrtcGetCUBINSize(program.handle, &size), "nvrtcGetCUBINSize");
        out.resize(size);
        if (size > 0) check(nvrtcGetCUBIN(program.handle, out.data()), "nvrtcGetCUBIN");
    } else {
        check(nvrtcGetPTXSize(program.handle, &size), "nvrtcGetPTXSize");
        out.resize(size);
        if (size > 0) check(nvrtcGetPTX(program.handle, out.data()), "nvrtcGetPTX");
        while (!out.empty() && out.back() == '\0') out.pop_back(); // the size counts the terminating NUL
    }
    if (out.empty()) throw BackendError("NVRTC produced no " + std::string(options.cubin ? "CUBIN" : "PTX"));
    return out;
}

#else // !WEFT_HAVE_NVRTC

bool nvrtc_available() noexcept { return false; }
std::string nvrtc_version() { throw BackendError(cuda::no_toolkit_message); }
std::vector<int> nvrtc_supported_archs() { throw BackendError(cuda::no_toolkit_message); }
std::string cuda_toolchain_identity(const CudaCompileOptions &) { throw BackendError(cuda::no_toolkit_message); }
std::string compile_cuda(std::string_view, const CudaCompileOptions &, std::vector<CudaDiagnostic> *) {
    throw BackendError(cuda::no_toolkit_message);
}

#endif

} // namespace weft::backend
