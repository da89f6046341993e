// Tests of the CUDA backend: NVRTC (runs without a GPU or driver), NVRTC log
// parsing, and the run-time-loaded driver wrapper. Tests that need a device
// skip (with a WARN saying why) on machines without one.
#include "weft/backend/cuda.hpp"
#include "skip.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#ifndef WEFT_TEST_EXPECT_NVRTC
#error "WEFT_TEST_EXPECT_NVRTC must be defined (1: the CUDA toolkit was found at configure time)"
#endif
#ifndef WEFT_RT_INCLUDE_DIR
#error "WEFT_RT_INCLUDE_DIR must be defined"
#endif

using namespace weft::backend;
namespace fs = std::filesystem;

namespace {

const char *const doubling_kernel = "extern \"C\" __global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n";

bool contains(const std::string &haystack, const std::string &needle) {
    return haystack.find(needle) != std::string::npos;
}

CudaCompileOptions ptx(int arch = 90) {
    CudaCompileOptions o;
    o.arch = arch;
    return o;
}

CudaCompileOptions cubin(int arch = 90) {
    CudaCompileOptions o;
    o.arch = arch;
    o.cubin = true;
    return o;
}

bool is_elf(const std::string &image) { return image.size() > 4 && image.compare(0, 4, "\x7f" "ELF") == 0; }

// The error thrown by `f`, as text ("" when none).
template <class E, class F> std::string error_of(F &&f) {
    try {
        f();
    } catch (const E &e) {
        return e.what();
    }
    return {};
}

// A kernel using weft's runtime headers the way generated code does.
const char *const runtime_kernel = R"(#include "weft/rt/runtime.h"
WEFT_DEFINE_RUNTIME_GLOBALS
extern "C" __global__ void rt_kernel(weft::array_t<weft::float32> a, weft::array_t<weft::int32> counts,
                                     weft::float32 alpha) {
    const weft::int32 i = weft::int32(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= weft::len(a)) return;
    weft::index(a, i) = weft::add(weft::mul(alpha, weft::index(a, i)), weft::float32(1.0f));
    const weft::vec3 v(weft::index(a, i), 2.0f, 3.0f);
    weft::index(a, i) = weft::add(weft::index(a, i), weft::dot(v, v));
    weft::atomic_add(counts, 0, weft::int32(1));
    weft::atomic_add(a, 0, weft::float32(0.5f));
}
)";

CudaCompileOptions runtime_options(bool as_cubin) {
    CudaCompileOptions o = as_cubin ? cubin() : ptx();
    o.include_dirs.push_back(WEFT_RT_INCLUDE_DIR);
    o.source_name = "rt_module.cu";
    return o;
}

} // namespace

// ---------------------------------------------------------------------------
// Without a toolkit at configure time: everything says so.

TEST_CASE("without a CUDA toolkit every NVRTC entry point says so", "[nvrtc]") {
    REQUIRE(nvrtc_available() == bool(WEFT_TEST_EXPECT_NVRTC));
    if (nvrtc_available()) {
        SUCCEED("built with NVRTC");
        return;
    }
    const std::string message = "weft was built without CUDA (no CUDA toolkit at configure time)";
    CHECK(error_of<BackendError>([] { compile_cuda(doubling_kernel, ptx()); }) == message);
    CHECK(error_of<BackendError>([] { nvrtc_version(); }) == message);
    CHECK(error_of<BackendError>([] { nvrtc_supported_archs(); }) == message);
    CHECK(error_of<BackendError>([] { cuda_toolchain_identity(ptx()); }) == message);
    CHECK_FALSE(CudaDriver::instance().available());
    CHECK(CudaDriver::instance().unavailable_reason() == message);
    CHECK(error_of<BackendError>([] { CudaDriver::instance().device_count(); }) ==
          "CUDA driver not available: " + message);
}

// ---------------------------------------------------------------------------
// NVRTC log parsing (no NVRTC needed)

TEST_CASE("NVRTC logs parse into file:line:col diagnostics", "[diagnostics]") {
    const std::string log = "kernel.py(12): error: identifier \"y\" is undefined\n"
                            "  extern \"C\" __global__ void k(float *x) { x[0] = y; }\n"
                            "                                                  ^\n"
                            "\n"
                            "pre(lude).h(3): warning #177-D: variable \"z\" was declared but never referenced\n"
                            "  \tint z;\n"
                            "  \t    ^\n"
                            "\n"
                            "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
                            "\n"
                            "kernel.py(13): error: expression must have class type but it has type \"float\"\n"
                            "  template <class T> __device__ T f(T x) { return x.foo; }\n"
                            "                                                  ^\n"
                            "          detected during instantiation of \"T f(T) [with T=float]\" at line 40 of k2.py\n"
                            "\n"
                            "module.cu(1): catastrophic error: cannot open source file \"nope.h\"\n"
                            "  #include \"nope.h\"\n"
                            "                   ^\n"
                            "\n"
                            "3 errors detected in the compilation of \"module.cu\".\n"
                            "Compilation terminated.\n";
    const std::vector<CudaDiagnostic> d = parse_nvrtc_log(log);
    REQUIRE(d.size() == 4);
    CHECK(d[0].file == "kernel.py");
    CHECK(d[0].line == 12);
    CHECK(d[0].column == 49);
    CHECK(d[0].error);
    CHECK(d[0].message == "identifier \"y\" is undefined");
    CHECK(format_diagnostic(d[0]) == "kernel.py:12:49: error: identifier \"y\" is undefined");
    CHECK(d[1].file == "pre(lude).h");
    CHECK(d[1].line == 3);
    CHECK(d[1].column == 6); // the tab counts as one column
    CHECK_FALSE(d[1].error);
    CHECK(format_diagnostic(d[1]) == "pre(lude).h:3:6: warning: variable \"z\" was declared but never referenced");
    CHECK(d[2].message == "expression must have class type but it has type \"float\"\n"
                          "  detected during instantiation of \"T f(T) [with T=float]\" at line 40 of k2.py");
    CHECK(d[3].file == "module.cu");
    CHECK(d[3].error);
    CHECK(d[3].message == "cannot open source file \"nope.h\"");
}

TEST_CASE("NVRTC logs: no caret for long lines, located-less and ptxas diagnostics", "[diagnostics]") {
    const std::string long_line(300, 'x');
    const std::string log = "kernel.py(7): error: identifier \"qq\" is undefined\n  " + long_line.substr(0, 200) +
                            "\n" + std::string(210, ' ') + "\n\n" +
                            "nvrtc: error: unrecognized option -O9 found\n"
                            "Command-line error: invalid macro definition: 1X\n"
                            "ptxas error   : Entry function 'k' uses too much shared data\n"
                            "ptxas info    : 0 bytes gmem\n";
    const std::vector<CudaDiagnostic> d = parse_nvrtc_log(log);
    REQUIRE(d.size() == 4);
    CHECK(format_diagnostic(d[0]) == "kernel.py:7: error: identifier \"qq\" is undefined");
    CHECK(format_diagnostic(d[1]) == "error: unrecognized option -O9 found");
    CHECK(format_diagnostic(d[2]) == "error: command line: invalid macro definition: 1X");
    CHECK(format_diagnostic(d[3]) == "error: ptxas: Entry function 'k' uses too much shared data");
    CHECK(parse_nvrtc_log("").empty());
}

// ---------------------------------------------------------------------------
// NVRTC

TEST_CASE("nvrtc_version and supported archs", "[nvrtc]") {
    if (!nvrtc_available()) return;
    CHECK(nvrtc_version().rfind("nvrtc 13.", 0) == 0);
    const std::vector<int> archs = nvrtc_supported_archs();
    CHECK(std::is_sorted(archs.begin(), archs.end()));
    for (int arch : {75, 80, 86, 89, 90}) CHECK(std::count(archs.begin(), archs.end(), arch) == 1);
    CHECK(std::count(archs.begin(), archs.end(), 35) == 0);
}

TEST_CASE("a small kernel compiles to PTX for compute_90", "[nvrtc]") {
    if (!nvrtc_available()) return;
    const std::string out = compile_cuda(doubling_kernel, ptx());
    CHECK(contains(out, ".entry k"));
    CHECK(contains(out, ".target sm_90"));
    CHECK(out.back() != '\0');
    CHECK(std::strlen(out.c_str()) == out.size()); // loadable as a C string
}

TEST_CASE("a small kernel compiles to CUBIN for sm_90 and sm_80", "[nvrtc]") {
    if (!nvrtc_available()) return;
    for (int arch : {90, 80}) {
        INFO("sm_" << arch);
        const std::string image = compile_cuda(doubling_kernel, cubin(arch));
        CHECK(is_elf(image));
        CHECK(contains(image, "k")); // the symbol table names the entry
    }
}

TEST_CASE("source errors under #line are reported at file:line:col", "[nvrtc]") {
    if (!nvrtc_available()) return;
    const std::string source = "#line 3 \"preamble.h\"\n"
                               "__device__ float helper(float v) { return v; }\n"
                               "#line 12 \"kernel.py\"\n"
                               "extern \"C\" __global__ void k(float *x) { x[0] = helper(x[1]) }\n";
    try {
        compile_cuda(source, ptx());
        FAIL("expected a CudaCompileError");
    } catch (const CudaCompileError &e) {
        const std::string message = e.what();
        CHECK(message.rfind("kernel.py:12:", 0) == 0);
        CHECK(contains(message, ": error: expected a \";\""));
        CHECK_FALSE(contains(message, "__global__")); // never the source
        REQUIRE_FALSE(e.diagnostics().empty());
        CHECK(e.diagnostics()[0].file == "kernel.py");
        CHECK(e.diagnostics()[0].line == 12);
        CHECK(e.diagnostics()[0].column > 40);
        CHECK(e.diagnostics()[0].error);
    }
    // A CudaCompileError is the user's (or a plugin's) fault.
    CHECK_THROWS_AS(compile_cuda("#line 3 \"preamble.h\"\nint broken(;\n", ptx()), weft::UserError);
}

TEST_CASE("many errors: at most 20 listed", "[nvrtc]") {
    if (!nvrtc_available()) return;
    std::string source = "#line 1 \"many.py\"\n";
    for (int i = 0; i < 25; ++i) source += "__device__ int v" + std::to_string(i) + " = undefined_" + std::to_string(i) + ";\n";
    const std::string message = error_of<CudaCompileError>([&] { compile_cuda(source, ptx()); });
    CHECK(contains(message, "many.py:1:"));
    CHECK(contains(message, "many.py:20:"));
    CHECK_FALSE(contains(message, "many.py:21:"));
    CHECK(contains(message, "... and 5 more errors"));
}

TEST_CASE("a missing header is a CudaCompileError naming it", "[nvrtc]") {
    if (!nvrtc_available()) return;
    const std::string message =
        error_of<CudaCompileError>([] { compile_cuda("#include \"no_such_header.h\"\n", ptx()); });
    CHECK(contains(message, "module.cu:1:"));
    CHECK(contains(message, "cannot open source file \"no_such_header.h\""));
}

TEST_CASE("an architecture NVRTC does not support lists the supported ones", "[nvrtc]") {
    if (!nvrtc_available()) return;
    for (bool as_cubin : {false, true}) {
        CudaCompileOptions o = as_cubin ? cubin(35) : ptx(35);
        const std::string message = error_of<BackendError>([&] { compile_cuda(doubling_kernel, o); });
        INFO(message);
        CHECK(contains(message, "cannot compile for CUDA architecture 35"));
        CHECK(contains(message, as_cubin ? "(sm_35)" : "(compute_35)"));
        CHECK(contains(message, "supports 75 80 86"));
        CHECK(contains(message, " 90"));
    }
    CudaCompileOptions bad_opt = cubin();
    bad_opt.opt_level = 4;
    CHECK(contains(error_of<BackendError>([&] { compile_cuda(doubling_kernel, bad_opt); }), "opt_level must be 0..3"));
}

TEST_CASE("fast_math and fmad change the PTX", "[nvrtc]") {
    if (!nvrtc_available()) return;
    const char *source = "extern \"C\" __global__ void k(float *x, float a, float b) {\n"
                         "    x[0] = x[1] * a + b;\n"
                         "    x[2] = sqrtf(x[3]);\n"
                         "}\n";
    const std::string precise = compile_cuda(source, ptx());
    CHECK(contains(precise, "sqrt.rn.f32"));
    CHECK(contains(precise, "fma.rn.f32"));

    CudaCompileOptions fast = ptx();
    fast.fast_math = true;
    const std::string fast_ptx = compile_cuda(source, fast);
    CHECK(contains(fast_ptx, "sqrt.approx"));
    CHECK_FALSE(contains(fast_ptx, "sqrt.rn"));

    CudaCompileOptions no_fmad = ptx();
    no_fmad.fmad = false;
    const std::string separate = compile_cuda(source, no_fmad);
    CHECK_FALSE(contains(separate, "fma.rn"));
    CHECK(contains(separate, "mul.rn.f32"));
    CHECK(contains(separate, "add.rn.f32"));
}

TEST_CASE("__constant__ data and a parameterless entry", "[nvrtc]") {
    if (!nvrtc_available()) return;
    const char *source = "__constant__ float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};\n"
                         "__device__ float result;\n"
                         "extern \"C\" __global__ void entry() { result = table[threadIdx.x & 3]; }\n";
    const std::string out = compile_cuda(source, ptx());
    CHECK(contains(out, ".const .align 4 .b8 table[16]"));
    CHECK(contains(out, ".entry entry()"));
    CHECK(contains(out, ".global .align 4 .f32 result"));
}

TEST_CASE("line_info, defines, include dirs, warnings", "[nvrtc]") {
    if (!nvrtc_available()) return;
    const fs::path dir = fs::temp_directory_path() / ("weft_cuda_test_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "plugin_preamble.h") << "__device__ inline float scale(float v) { return v * SCALE; }\n";

    CudaCompileOptions o = ptx();
    o.include_dirs = {dir};
    o.defines = {"SCALE=3.0f", "WITH_EXTRA"};
    o.line_info = true;
    const char *source = "#include \"plugin_preamble.h\"\n"
                         "#ifndef WITH_EXTRA\n#error WITH_EXTRA is not defined\n#endif\n"
                         "#line 5 \"kernel.py\"\n"
                         "extern \"C\" __global__ void k(float *x) { int unused = 0; x[0] = scale(x[1]); }\n";
    std::vector<CudaDiagnostic> warnings;
    const std::string out = compile_cuda(source, o, &warnings);
    CHECK(contains(out, ".loc"));
    CHECK(contains(out, "kernel.py"));
    CHECK(contains(out, "0f40400000")); // 3.0f
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].file == "kernel.py");
    CHECK(warnings[0].line == 5);
    CHECK_FALSE(warnings[0].error);
    CHECK(contains(warnings[0].message, "\"unused\" was declared but never referenced"));
    fs::remove_all(dir);

    // A define NVRTC cannot take (a plugin's or a user's) is a CudaCompileError.
    CudaCompileOptions bad = ptx();
    bad.defines = {""};
    CHECK(error_of<CudaCompileError>([&] { compile_cuda(doubling_kernel, bad); }) ==
          "error: command line: invalid macro definition:");
}

TEST_CASE("cuda_toolchain_identity names what changes the code", "[nvrtc]") {
    if (!nvrtc_available()) return;
    const std::string base = cuda_toolchain_identity(ptx());
    CHECK(base == nvrtc_version() + " ptx --std=c++17 --gpu-architecture=compute_90");
    CudaCompileOptions o = cubin();
    o.fast_math = true;
    o.fmad = false;
    o.line_info = true;
    o.opt_level = 2;
    CHECK(cuda_toolchain_identity(o) == nvrtc_version() +
                                            " cubin --std=c++17 --gpu-architecture=sm_90 --ptxas-options=-O2 "
                                            "--use_fast_math --fmad=false -lineinfo");
    CHECK(cuda_toolchain_identity(ptx(80)) != base);
    // Paths, defines, the source name and the PCH are hashed with the module, not here.
    CudaCompileOptions same = ptx();
    same.include_dirs = {"/somewhere"};
    same.defines = {"X=1"};
    same.source_name = "other.cu";
    same.use_pch = true;
    CHECK(cuda_toolchain_identity(same) == base);
}

TEST_CASE("weft's runtime headers compile under NVRTC", "[nvrtc][runtime]") {
    if (!nvrtc_available()) return;
    const std::string out = compile_cuda(runtime_kernel, runtime_options(false));
    CHECK(contains(out, ".entry rt_kernel("));
    CHECK(contains(out, ".global .align 4 .u32 weft_expect_failures"));
    const bool atomic = contains(out, "atom.global.add") || contains(out, "red.global.add");
    CHECK(atomic);
    CHECK(is_elf(compile_cuda(runtime_kernel, runtime_options(true))));

    // With NVRTC's automatic PCH: the same code.
    CudaCompileOptions pch = runtime_options(false);
    pch.use_pch = true;
    CHECK(compile_cuda(runtime_kernel, pch) == out);
    CHECK(compile_cuda(runtime_kernel, pch) == out);
}

TEST_CASE("NVRTC compiles from several threads at once", "[nvrtc]") {
    if (!nvrtc_available()) return;
    std::vector<std::string> results(4);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < results.size(); ++i)
        threads.emplace_back([&, i] { results[i] = compile_cuda(runtime_kernel, runtime_options(i % 2 == 1)); });
    for (auto &t : threads) t.join();
    for (std::size_t i = 0; i < results.size(); ++i) CHECK(results[i] == results[i % 2]);
}

// ---------------------------------------------------------------------------
// The driver, loaded at run time

TEST_CASE("a missing driver library makes the driver unavailable, with dlerror's text", "[driver]") {
    CudaDriver driver("libweft_no_such_cuda_driver.so.1");
    CHECK_FALSE(driver.available());
    if (nvrtc_available()) CHECK(contains(driver.unavailable_reason(), "libweft_no_such_cuda_driver.so.1"));
    const std::string message = error_of<BackendError>([&] { driver.device_count(); });
    CHECK(message == "CUDA driver not available: " + driver.unavailable_reason());
    CHECK_THROWS_AS(driver.mem_alloc(16), BackendError);
    CHECK_THROWS_AS(driver.api(), BackendError);
}

TEST_CASE("a library that is not a CUDA driver makes the driver unavailable", "[driver]") {
    if (!nvrtc_available()) return;
    CudaDriver driver("libc.so.6");
    CHECK_FALSE(driver.available());
    CHECK(contains(driver.unavailable_reason(), "has no cuGetProcAddress_v2"));
}

TEST_CASE("the process's driver: unavailable here means every use throws", "[driver]") {
    CudaDriver &driver = CudaDriver::instance();
    CHECK(&driver == &CudaDriver::instance());
    if (driver.available()) {
        WARN("a CUDA driver is installed: " << driver.driver_version());
        CHECK(driver.device_count() >= 0);
        return;
    }
    CHECK_FALSE(driver.unavailable_reason().empty());
    const std::string message = error_of<BackendError>([&] { driver.device_count(); });
    CHECK(contains(message, "CUDA driver not available"));
    CHECK(contains(message, driver.unavailable_reason()));
    CHECK_THROWS_WITH(driver.module_load_data("x"), Catch::Contains("CUDA driver not available"));
}

TEST_CASE("on a device: load, launch, copy back, globals, events, errors", "[driver][device]") {
    CudaDriver &driver = CudaDriver::instance();
    if (!driver.available()) {
        weft::test::skip("no CUDA driver (" + driver.unavailable_reason() + ")");
    }
    if (driver.device_count() == 0) {
        weft::test::skip("the CUDA driver sees no device");
    }
    REQUIRE(nvrtc_available());
    const CudaDevice dev = driver.device(0);
    const int cc = driver.compute_capability(dev);
    std::vector<int> archs = nvrtc_supported_archs();
    int arch = archs.front();
    for (int a : archs)
        if (a <= cc) arch = a;
    WARN("device 0: " << driver.device_name(dev) << ", sm_" << cc << ", driver " << driver.driver_version()
                      << "; compiling for " << arch);

    CudaContext ctx = driver.primary_context_retain(dev);
    driver.set_current_context(ctx);
    CHECK(driver.current_context() == ctx);

    // PTX from NVRTC 13 needs a CUDA 13 driver; a CUBIN for the device's arch does not JIT.
    CudaCompileOptions o = driver.driver_version() >= 13000 ? ptx(arch) : cubin(arch);
    const std::string source = std::string(doubling_kernel) +
                               "__constant__ float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};\n"
                               "extern \"C\" __global__ void read_table(float *out) { out[threadIdx.x] = table[threadIdx.x]; }\n";
    const std::string image = compile_cuda(source, o);
    CudaModule module = driver.module_load_data(image.c_str());
    CudaFunction k = driver.module_get_function(module, "k");

    std::vector<float> host(32);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = float(i);
    const std::size_t bytes = host.size() * sizeof(float);
    CudaDevicePtr x = driver.mem_alloc(bytes);
    driver.memcpy_htod(x, host.data(), bytes);
    void *params[] = {&x};
    CudaStream stream = driver.stream_create(CudaDriver::stream_non_blocking);
    CudaEvent start = driver.event_create(), stop = driver.event_create();
    driver.event_record(start, stream);
    driver.launch_kernel(k, 1, 1, 1, 32, 1, 1, 0, stream, params);
    driver.event_record(stop, stream);
    driver.stream_synchronize(stream);
    CHECK(driver.event_query(stop));
    driver.event_synchronize(stop);
    CHECK(driver.event_elapsed_ms(start, stop) >= 0.0f);
    std::vector<float> back(host.size());
    driver.memcpy_dtoh(back.data(), x, bytes);
    for (std::size_t i = 0; i < host.size(); ++i) CHECK(back[i] == 2.0f * host[i]);

    driver.memset_d8(x, 0, bytes);
    driver.memcpy_dtoh(back.data(), x, bytes);
    CHECK(back[5] == 0.0f);

    const auto [table, table_bytes] = driver.module_get_global(module, "table");
    CHECK(table != 0);
    CHECK(table_bytes == 4 * sizeof(float));
    const CudaFunctionAttributes attributes = driver.function_attributes(k);
    CHECK(attributes.max_threads_per_block > 0);
    CHECK(attributes.num_regs > 0);
    const auto [min_grid, block] = driver.max_potential_block_size(k);
    CHECK(min_grid > 0);
    CHECK(block > 0);
    const auto [free_bytes, total_bytes] = driver.mem_get_info();
    CHECK(free_bytes <= total_bytes);

    CHECK(error_of<CudaDriverError>([&] { driver.module_get_function(module, "no_such_kernel"); }) ==
          "cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (named symbol not found)");
    // Not PTX (NUL-terminated text, so the driver reads no further than it).
    const std::string bad_image = error_of<CudaDriverError>([&] { driver.module_load_data("this is not PTX"); });
    CHECK(bad_image.rfind("cuModuleLoadDataEx failed: CUDA_ERROR_", 0) == 0);
    // PTX the JIT rejects: the message carries ptxas's log, with the line (6: the undeclared register).
    const std::string bad_ptx = error_of<CudaDriverError>([&] {
        driver.module_load_data(".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry k()\n{\n"
                                "\tmov.u32 %r1, 1;\n\tret;\n}\n");
    });
    CHECK_THAT(bad_ptx, Catch::Contains("CUDA_ERROR_INVALID_PTX") && Catch::Contains("JIT log:") &&
                            Catch::Contains("line 6"));

    driver.event_destroy(start);
    driver.event_destroy(stop);
    driver.stream_destroy(stream);
    driver.mem_free(x);
    driver.module_unload(module);
    driver.primary_context_release(dev);
}

// ---------------------------------------------------------------------------
// Compile latency (informational: printed with -s, never fails)

TEST_CASE("NVRTC compile latency", "[nvrtc][.timing]") {
    if (!nvrtc_available()) return;
    auto time = [](const char *what, const std::string &source, const CudaCompileOptions &o) {
        std::vector<double> ms;
        for (int i = 0; i < 5; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            compile_cuda(source, o);
            ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        const double first = ms.front();
        std::sort(ms.begin(), ms.end());
        WARN(what << ": first " << first << " ms, median " << ms[2] << " ms");
    };
    time("small kernel, PTX", doubling_kernel, ptx());
    time("small kernel, CUBIN", doubling_kernel, cubin());
    time("runtime headers, PTX", runtime_kernel, runtime_options(false));
    time("runtime headers, CUBIN", runtime_kernel, runtime_options(true));
    CudaCompileOptions pch = runtime_options(false);
    pch.use_pch = true;
    time("runtime headers, PTX, -pch", runtime_kernel, pch);
}
