// CUDA compile times, no GPU needed: weft's in-process NVRTC (PTX for
// compute_XX and CUBIN for sm_XX, NVRTC's automatic PCH off / on) side by
// side with `nvcc -ptx` / `nvcc -cubin` run as a subprocess on the identical
// generated source file, and with NVIDIA Warp compiling the same kernel files
// to PTX (when the venv of bench/vs_warp/setup_warp.sh exists).
//
// Modules:
//   saxpy        bench/kernels/saxpy.py: one kernel ("light": weft's runtime headers only)
//   ten_kernels  bench/kernels/ten_kernels.py: ten kernels, a struct, a function
//   heavy        ten_kernels' generated source with the toolkit's CCCL headers
//                (libcu++ <cuda/std/{complex,atomic,tuple,array,span,mdspan}> and
//                CUB block reduce / scan / radix sort) included right after
//                <weft/rt/runtime.h>: what a plugin wrapping block-level primitives
//                pulls in. Here they are among the source's leading #includes, which
//                NVRTC's automatic PCH covers (weft's codegen puts a plugin's CUDA
//                preamble after WEFT_DEFINE_RUNTIME_GLOBALS, past that prefix).
//
// The generated source comes from the public API: Host::compile_aot once for
// cuda-compute_XX-ptx, then the .cu it leaves in <cache>/v1/generated/. Every
// compiler sees the same bytes from the same file, -std=c++17 and the same -I
// (weft's runtime headers; for heavy also <cuda>/include/cccl and <cuda>/include).
// nvcc and NVRTC both run ptxas at -O3 for CUBIN.
//
// Printed lines (times are medians of --repeat):
//   ratio nvrtc_ptx_vs_nvcc_<module>     NVRTC PTX / nvcc -ptx
//   ratio nvrtc_cubin_vs_nvcc_<module>   NVRTC CUBIN / nvcc -cubin
//   ratio nvrtc_pch_vs_nopch_<light|heavy>  NVRTC PTX with -pch, the PCH already
//                                        built in this process / without -pch
//   warp_cuda_compile_ms <file> <ms>     Warp: import + wp.compile_aot_module to PTX, fresh process and cache
//   weft_cuda_compile_ms <file> <ms>     weft: Host::compile_aot to PTX, fresh cache (front end + codegen + NVRTC)
//   ratio nvrtc_vs_warp_<module>         weft_cuda_compile_ms / warp_cuda_compile_ms
//
//   build/bin/bench_cuda_compile [--kernels bench/kernels] [--repeat 5] [--arch 90] [--no-warp]
#include "weft/backend/cuda.hpp"
#include "weft/codegen/runtime_headers.hpp"
#include "weft/host/host.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

#ifndef WEFT_BENCH_NVCC
#define WEFT_BENCH_NVCC ""
#endif
#ifndef WEFT_BENCH_CUDA_INCLUDE
#define WEFT_BENCH_CUDA_INCLUDE ""
#endif
#ifndef WEFT_BENCH_SOURCE_DIR
#define WEFT_BENCH_SOURCE_DIR "bench/cuda_compile"
#endif

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using weft::backend::CudaCompileOptions;

namespace {

// The heavy module's extra includes (see the top of this file).
const char *const heavy_includes = "#include <cuda/std/complex>\n"
                                   "#include <cuda/std/atomic>\n"
                                   "#include <cuda/std/tuple>\n"
                                   "#include <cuda/std/array>\n"
                                   "#include <cuda/std/span>\n"
                                   "#include <cuda/std/mdspan>\n"
                                   "#include <cub/block/block_reduce.cuh>\n"
                                   "#include <cub/block/block_scan.cuh>\n"
                                   "#include <cub/block/block_radix_sort.cuh>\n";

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::string quote(const std::string &s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string read_file(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_file(const fs::path &p, const std::string &text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

double shell_ms(const std::string &command) {
    const auto t0 = Clock::now();
    if (std::system(command.c_str()) != 0) {
        std::fprintf(stderr, "bench_cuda_compile: command failed: %s\n", command.c_str());
        std::exit(1);
    }
    return ms_since(t0);
}

fs::path find_nvcc() {
    const fs::path configured = WEFT_BENCH_NVCC;
    if (!configured.empty() && fs::exists(configured)) return configured;
    if (const char *path = std::getenv("PATH")) {
        std::stringstream dirs(path);
        for (std::string dir; std::getline(dirs, dir, ':');)
            if (!dir.empty() && access((fs::path(dir) / "nvcc").c_str(), X_OK) == 0) return fs::path(dir) / "nvcc";
    }
    return {};
}

// nvcc's "Cuda compilation tools, release 13.0, V13.0.88" line.
std::string nvcc_release(const fs::path &nvcc) {
    std::string release;
    if (FILE *p = popen((quote(nvcc.string()) + " --version").c_str(), "r")) {
        char buf[512];
        while (std::fgets(buf, sizeof buf, p))
            if (std::strstr(buf, "release")) release = buf;
        pclose(p);
    }
    while (!release.empty() && (release.back() == '\n' || release.back() == '\r')) release.pop_back();
    return release;
}

// NVRTC's PCH heap (nvrtcGetPCHHeapSize, CUDA 12.8+), looked up in the
// process (libnvrtc is loaded through weft_backend_cuda); 0 when absent.
std::size_t nvrtc_pch_heap_size() {
    using Fn = int (*)(std::size_t *);
    void *sym = dlsym(RTLD_DEFAULT, "nvrtcGetPCHHeapSize");
    if (!sym) return 0;
    Fn fn = nullptr;
    static_assert(sizeof fn == sizeof sym);
    std::memcpy(&fn, &sym, sizeof fn);
    std::size_t size = 0;
    return fn(&size) == 0 ? size : 0;
}

struct Module {
    std::string tag;  // saxpy, ten_kernels, heavy
    std::string file; // the .py it comes from
    fs::path cu;      // the generated source, as compiled by everyone
    std::vector<fs::path> include_dirs;
    std::string text;
};

CudaCompileOptions nvrtc_options(const Module &m, int arch, bool cubin, bool pch) {
    CudaCompileOptions o;
    o.arch = arch;
    o.cubin = cubin;
    o.include_dirs = m.include_dirs;
    o.source_name = m.cu.string();
    o.use_pch = pch;
    return o;
}

double nvrtc_ms(const Module &m, int arch, bool cubin, bool pch) {
    const CudaCompileOptions o = nvrtc_options(m, arch, cubin, pch);
    const auto t0 = Clock::now();
    const std::string out = weft::backend::compile_cuda(m.text, o);
    const double ms = ms_since(t0);
    if (out.empty()) {
        std::fprintf(stderr, "bench_cuda_compile: NVRTC produced nothing for %s\n", m.tag.c_str());
        std::exit(1);
    }
    return ms;
}

std::string nvcc_command(const fs::path &nvcc, const Module &m, int arch, bool cubin, const fs::path &out) {
    std::string cmd = quote(nvcc.string()) + (cubin ? " -cubin -arch=sm_" : " -ptx -arch=compute_") + std::to_string(arch) +
                      " -std=c++17";
    for (const fs::path &d : m.include_dirs) cmd += " -I" + quote(d.string());
    return cmd + " " + quote(m.cu.string()) + " -o " + quote(out.string());
}

weft::HostOptions host_options(const fs::path &cache) {
    weft::HostOptions o;
    o.use_environment = false;
    o.cache_dir = cache;
    o.quiet = true;
    return o;
}

// The .cu Host::compile_aot left in <cache>/v1/generated/ for `stem`.
fs::path generated_cu(const fs::path &cache, const std::string &stem) {
    for (const auto &e : fs::directory_iterator(cache / "v1" / "generated")) {
        const std::string name = e.path().filename().string();
        if (e.path().extension() == ".cu" && name.rfind(stem + "-", 0) == 0) return e.path();
    }
    std::fprintf(stderr, "bench_cuda_compile: no generated .cu for %s under %s\n", stem.c_str(), cache.c_str());
    std::exit(1);
}

// Runs the Warp side; returns {file: ms}. Prints its context lines.
std::map<std::string, double> run_warp(const fs::path &kernels, int repeat, int arch, const fs::path &work) {
    std::map<std::string, double> result;
    const char *venv_env = std::getenv("WEFT_BENCH_VENV");
    const char *home = std::getenv("HOME");
    const fs::path venv = venv_env && *venv_env ? fs::path(venv_env) : fs::path(home ? home : "") / ".cache/weft/warp-venv";
    const fs::path python = venv / "bin" / "python";
    fs::path script = fs::path(WEFT_BENCH_SOURCE_DIR) / "warp_cuda_compile.py";
    if (access(python.c_str(), X_OK) != 0) {
        std::printf("warp: skipped (no venv python at %s; bench/vs_warp/setup_warp.sh creates it)\n", python.c_str());
        return result;
    }
    if (!fs::exists(script)) {
        std::printf("warp: skipped (%s not found)\n", script.c_str());
        return result;
    }
    const std::string cmd = quote(python.string()) + " " + quote(script.string()) + " --kernels " +
                            quote(kernels.string()) + " --repeat " + std::to_string(repeat) + " --arch " +
                            std::to_string(arch) + " --cache-dir " + quote((work / "warp").string()) + " 2>&1";
    FILE *p = popen(cmd.c_str(), "r");
    if (!p) {
        std::printf("warp: skipped (cannot run %s)\n", python.c_str());
        return result;
    }
    std::string out;
    char buf[4096];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    const int status = pclose(p);
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
        char file[256];
        double ms = 0;
        if (std::sscanf(line.c_str(), "warp_cuda_compile_ms %255s %lf", file, &ms) == 2) result[file] = ms;
        else if (line.rfind("#", 0) == 0) std::printf("warp %s\n", line.c_str());
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::printf("warp: skipped (warp_cuda_compile.py exit %d)\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        std::istringstream again(out);
        for (std::string line; std::getline(again, line);)
            if (line.rfind("#", 0) != 0) std::printf("warp:   %s\n", line.c_str());
        result.clear();
    }
    return result;
}

} // namespace

int main(int argc, char **argv) {
    fs::path kernels = "bench/kernels";
    int repeat = 5;
    int arch = 90;
    bool warp = true;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--kernels") && i + 1 < argc) kernels = argv[++i];
        else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--arch") && i + 1 < argc) arch = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--no-warp")) warp = false;
        else {
            std::fprintf(stderr, "usage: %s [--kernels DIR] [--repeat N] [--arch 90] [--no-warp]\n", argv[0]);
            return 2;
        }
    }
    if (!weft::backend::nvrtc_available()) {
        std::printf("skipped: built without CUDA\n");
        return 0;
    }
    kernels = fs::absolute(kernels);
    const fs::path nvcc = find_nvcc();
    const fs::path cuda_include = WEFT_BENCH_CUDA_INCLUDE;
    const fs::path work = fs::temp_directory_path() / ("weft_bench_cuda_" + std::to_string(getpid()));
    fs::remove_all(work);
    fs::create_directories(work);

    try {
        std::printf("bench_cuda_compile: medians of %d; %s, arch %d; nvcc: %s\n", repeat,
                    weft::backend::nvrtc_version().c_str(), arch,
                    nvcc.empty() ? "not found" : (nvcc.string() + " (" + nvcc_release(nvcc) + ")").c_str());

        // Generated sources through the public API, copied with the runtime headers into `work`.
        const fs::path rt_dir = weft::codegen::materialize_runtime_headers(work / "runtime-headers");
        std::vector<Module> modules;
        for (const char *file : {"saxpy.py", "ten_kernels.py"}) {
            const std::string stem = fs::path(file).stem().string();
            const fs::path cache = work / ("gen_" + stem);
            weft::Host host(host_options(cache));
            host.compile_aot(kernels / file, {weft::Target::cuda_ptx(arch)});
            Module m{stem, file, work / (stem + ".cu"), {rt_dir}, read_file(generated_cu(cache, stem))};
            write_file(m.cu, m.text);
            modules.push_back(std::move(m));
        }
        {
            Module heavy = modules.back();
            heavy.tag = "heavy";
            heavy.file = "ten_kernels.py+cccl";
            heavy.cu = work / "heavy.cu";
            const std::string anchor = "#include <weft/rt/runtime.h>\n";
            const auto at = heavy.text.find(anchor);
            if (at == std::string::npos || cuda_include.empty()) {
                std::printf("heavy: skipped (%s)\n", cuda_include.empty() ? "no CUDA include dir" : "no runtime include");
            } else {
                heavy.text.insert(at + anchor.size(), heavy_includes);
                if (fs::exists(cuda_include / "cccl")) heavy.include_dirs.push_back(cuda_include / "cccl");
                heavy.include_dirs.push_back(cuda_include);
                write_file(heavy.cu, heavy.text);
                modules.push_back(std::move(heavy));
            }
        }

        // NVRTC's one-time start-up (builtin headers, ...) is paid by the first compile of the process.
        {
            const double first = nvrtc_ms(modules[0], arch, false, false);
            std::printf("first NVRTC compile in the process (saxpy PTX, not counted): %.1f ms\n", first);
        }

        for (const Module &m : modules) {
            std::vector<double> ptx, cubin, sub_ptx, sub_cubin;
            for (int r = 0; r < repeat; ++r) {
                ptx.push_back(nvrtc_ms(m, arch, false, false));
                cubin.push_back(nvrtc_ms(m, arch, true, false));
                if (!nvcc.empty()) {
                    sub_ptx.push_back(shell_ms(nvcc_command(nvcc, m, arch, false, work / (m.tag + ".ptx"))));
                    sub_cubin.push_back(shell_ms(nvcc_command(nvcc, m, arch, true, work / (m.tag + ".cubin"))));
                }
            }
            const double p = median(ptx), c = median(cubin);
            if (nvcc.empty()) {
                std::printf("%-20s NVRTC ptx %8.1f ms, cubin %8.1f ms | nvcc: not found, skipped\n", m.file.c_str(), p, c);
                continue;
            }
            const double sp = median(sub_ptx), sc = median(sub_cubin);
            std::printf("%-20s NVRTC ptx %8.1f ms, cubin %8.1f ms | nvcc -ptx %8.1f ms, -cubin %8.1f ms\n", m.file.c_str(),
                        p, c, sp, sc);
            std::printf("ratio nvrtc_ptx_vs_nvcc_%s %.3f\n", m.tag.c_str(), p / sp);
            std::printf("ratio nvrtc_cubin_vs_nvcc_%s %.3f\n", m.tag.c_str(), c / sc);
        }

        // NVRTC's automatic PCH (-pch): the first compile with it builds the
        // PCH of the source's leading #includes in memory, later ones with the
        // same includes reuse it. Off and on alternate, after that first one.
        if (const std::size_t heap = nvrtc_pch_heap_size())
            std::printf("NVRTC PCH heap: %.0f MiB\n", static_cast<double>(heap) / (1024.0 * 1024.0));
        for (const Module &m : modules) {
            if (m.tag != "saxpy" && m.tag != "heavy") continue;
            const char *kind = m.tag == "saxpy" ? "light" : "heavy";
            const double create = nvrtc_ms(m, arch, false, true);
            std::vector<double> off, on;
            for (int r = 0; r < repeat; ++r) {
                off.push_back(nvrtc_ms(m, arch, false, false));
                on.push_back(nvrtc_ms(m, arch, false, true));
            }
            const double o = median(off), p = median(on);
            std::printf("PCH %s (%s) PTX: off %8.1f ms | on: first (builds it) %8.1f ms, then %8.1f ms\n", kind,
                        m.file.c_str(), o, create, p);
            std::printf("ratio nvrtc_pch_vs_nopch_%s %.3f\n", kind, p / o);
        }

        // weft end to end (front end, codegen, NVRTC, cache store) from a fresh cache vs Warp.
        if (warp) {
            std::map<std::string, double> weft_ms;
            for (const char *file : {"saxpy.py", "ten_kernels.py"}) {
                std::vector<double> v;
                for (int r = 0; r < repeat; ++r) {
                    const fs::path cache = work / "aot";
                    fs::remove_all(cache);
                    weft::Host host(host_options(cache));
                    const auto t0 = Clock::now();
                    host.compile_aot(kernels / file, {weft::Target::cuda_ptx(arch)});
                    v.push_back(ms_since(t0));
                }
                weft_ms[file] = median(v);
            }
            const std::map<std::string, double> warp_ms = run_warp(kernels, repeat, arch, work);
            for (const auto &[file, w] : warp_ms) {
                const auto mine = weft_ms.find(file);
                if (mine == weft_ms.end()) continue;
                const std::string tag = fs::path(file).stem().string();
                std::printf("warp_cuda_compile_ms %s %.1f\n", file.c_str(), w);
                std::printf("weft_cuda_compile_ms %s %.1f\n", file.c_str(), mine->second);
                std::printf("ratio nvrtc_vs_warp_%s %.3f\n", tag.c_str(), mine->second / w);
            }
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "bench_cuda_compile: %s\n", e.what());
        fs::remove_all(work);
        return 1;
    }
    fs::remove_all(work);
    return 0;
}
