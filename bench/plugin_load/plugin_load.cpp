// bench/plugin_load: the cost of discovering (manifests only) and of loading
// and registering N plugins x M builtins, next to a bare dlopen of the same
// libraries, measured side by side in one run. Two floors are printed with
// it: the system calls of reading and checking the files, and a loader that
// does everything but the registry's work (init_floor); what load + register
// spends above the second is the registry's.
//
//   build/bin/bench_plugin_load [--repeat K] [--load-only]
#include "weft/host/host.hpp"
#include "weft/manifest/manifest.hpp"
#include "weft/host/search_path.hpp"
#include "weft/plugin.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// This process's CPU time (all threads), in ms: should loading ever use more
/// than one core, its wall time alone would flatter it.
double cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return 1e3 * static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_nsec);
}

/// The system calls a loader that reads each manifest and checks each
/// library file before dlopen cannot avoid, with nothing parsed: open, fstat,
/// read and close, once per manifest and once per library (the ELF headers).
/// Added to the bare dlopen's time it is the floor of load_register_vs_dlopen
/// on this machine, before a single registration. This is one file's share.
bool read_file(const std::filesystem::path &f) {
    char buf[4096];
    const int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return false;
    struct stat st {};
    const bool ok = ::fstat(fd, &st) == 0 && ::pread(fd, buf, sizeof buf, 0) > 0;
    ::close(fd);
    return ok;
}

bool read_files(const std::vector<std::filesystem::path> &files) {
    return std::all_of(files.begin(), files.end(), read_file);
}

/// What every registration must cost at least: the ABI says the host copies
/// each string a plugin passes during the call. This host copies them into
/// one reused buffer, checks and keeps nothing.
struct CopyOnly {
    std::string bytes;
    std::size_t calls = 0;
    void copy(const char *s) {
        if (s) bytes.append(s);
    }
};

extern "C" weft_status copy_only_register(weft_host_context *ctx, const weft_builtin_desc *d) {
    auto &sink = *reinterpret_cast<CopyOnly *>(ctx);
    weft_builtin_desc desc{};
    std::memcpy(&desc, d, std::min<std::size_t>(d->struct_size, sizeof desc));
    sink.bytes.clear();
    sink.copy(desc.name);
    for (std::uint32_t i = 0; i < desc.param_count; ++i) {
        sink.copy(desc.params[i].name);
        sink.copy(desc.params[i].type);
    }
    sink.copy(desc.result_type);
    sink.copy(desc.native_name);
    sink.copy(desc.doc);
    sink.copy(desc.adjoint_native);
    ++sink.calls;
    return WEFT_OK;
}

/// The floor of a loader that does everything but the registry's work, per
/// plugin: read and parse its manifest (toml++), check its library file,
/// dlopen it, look up and call its two entry points, and copy each string its
/// init passes. What load_register_vs_dlopen spends above this is the
/// registry: validation, type resolution, conflict checks and the records.
bool init_floor(const std::vector<std::filesystem::path> &manifests, const std::vector<std::filesystem::path> &libs,
                std::vector<void *> &handles, std::size_t &registrations) {
    CopyOnly sink;
    weft_host_api api{};
    api.struct_size = sizeof api;
    api.abi_version = WEFT_ABI_VERSION;
    api.ctx = reinterpret_cast<weft_host_context *>(&sink);
    api.register_builtin = &copy_only_register;
    for (std::size_t i = 0; i < libs.size(); ++i) {
        if (weft::read_manifest(manifests[i]).name.empty() || !read_file(libs[i])) return false;
        void *h = dlopen(libs[i].c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!h) return false;
        handles.push_back(h);
        auto info = reinterpret_cast<weft_plugin_info_fn>(dlsym(h, WEFT_PLUGIN_INFO_SYMBOL));
        auto init = reinterpret_cast<weft_plugin_init_fn>(dlsym(h, WEFT_PLUGIN_INIT_SYMBOL));
        if (!info || !init || !info() || init(&api) != WEFT_OK) return false;
    }
    registrations = sink.calls;
    return true;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

weft::HostOptions options() {
    weft::HostOptions o;
    o.use_environment = false;
    o.search_path = {WEFT_BENCH_PLUGIN_DIR};
    o.log_sink = [](weft::LogLevel, std::string_view, std::string_view) {};
    return o;
}

} // namespace

int main(int argc, char **argv) {
    int repeat = 7;
    bool load_only = false; // only load + register, for a profiler: perf record ... --load-only
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
        if (std::strcmp(argv[i], "--load-only") == 0) load_only = true;
    }

    weft::Host probe(options());
    const weft::Discovery d = probe.discover();
    for (const std::string &e : d.errors) std::fprintf(stderr, "plugin_load: %s\n", e.c_str());
    if (d.plugins.empty()) {
        std::fprintf(stderr, "plugin_load: no plugins in %s\n", WEFT_BENCH_PLUGIN_DIR);
        return 1;
    }
    std::vector<std::filesystem::path> dirs, libs, manifests;
    for (const weft::PluginManifest &m : d.plugins) {
        dirs.push_back(m.directory());
        libs.push_back(m.library_path);
        manifests.push_back(m.path);
    }

    // The manifests' text, so parsing can be timed apart from reading files.
    std::vector<std::pair<std::string, std::filesystem::path>> texts;
    for (const weft::PluginManifest &m : d.plugins) {
        std::FILE *f = std::fopen(m.path.c_str(), "rb");
        if (!f) return 1;
        std::string text;
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
        std::fclose(f);
        texts.emplace_back(std::move(text), m.path);
    }

    std::vector<double> list_ms, load_ms, load_cpu_ms, dlopen_ms, read_ms, parse_ms, syscalls_ms, floor_ms;
    std::size_t floor_registrations = 0;
    std::size_t registrations = 0;
    for (int k = 0; k < repeat; ++k) {
        // Interleaved, so drift on a noisy machine hits every measurement alike.
        auto t0 = Clock::now();
        if (load_only) {
            weft::Host host(options());
            if (!host.load_all(dirs).ok()) return 1;
            continue;
        }
        weft::Host lister(options());
        const std::size_t found = lister.discover().plugins.size();
        list_ms.push_back(ms_since(t0));
        if (found != dirs.size()) return 1;

        t0 = Clock::now();
        for (const auto &dir : dirs)
            if (weft::read_manifest(weft::locate_manifest(dir)).name.empty()) return 1;
        read_ms.push_back(ms_since(t0));

        t0 = Clock::now();
        for (const auto &[text, path] : texts)
            if (weft::parse_manifest(text, path).name.empty()) return 1;
        parse_ms.push_back(ms_since(t0));

        t0 = Clock::now();
        if (!read_files(manifests) || !read_files(libs)) return 1;
        syscalls_ms.push_back(ms_since(t0));

        t0 = Clock::now();
        std::vector<void *> handles;
        for (const auto &lib : libs) {
            void *h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (!h) {
                std::fprintf(stderr, "dlopen: %s\n", dlerror());
                return 1;
            }
            handles.push_back(h);
        }
        dlopen_ms.push_back(ms_since(t0));
        for (void *h : handles) dlclose(h);

        handles.clear();
        t0 = Clock::now();
        if (!init_floor(manifests, libs, handles, floor_registrations)) {
            std::fprintf(stderr, "init floor: a plugin failed to open or init\n");
            return 1;
        }
        floor_ms.push_back(ms_since(t0));
        for (void *h : handles) dlclose(h);

        {
            weft::Host host(options());
            // The host registers its core builtins on first use: before the
            // clock starts, so that only the plugins' registrations are timed.
            if (host.registry().builtin_count() == 0) return 1;
            t0 = Clock::now();
            const double c0 = cpu_ms();
            const weft::LoadReport r = host.load_all(dirs);
            load_ms.push_back(ms_since(t0));
            load_cpu_ms.push_back(cpu_ms() - c0);
            if (!r.ok()) {
                std::fprintf(stderr, "load failed: %s\n", r.failures.front().message.c_str());
                return 1;
            }
            registrations = host.registry().builtin_count();
        } // unload outside the timed region
    }

    if (load_only) return 0;
    const double list = median(list_ms), load = median(load_ms), bare = median(dlopen_ms);
    std::printf("plugins: %zu, builtins registered in all: %zu (core included), repeats: %d\n", dirs.size(),
                registrations, repeat);
    std::printf("list (manifests only)    %9.2f ms\n", list);
    std::printf("load + register          %9.2f ms  (%.1f us per registration)\n", load,
                1000.0 * load / static_cast<double>(registrations));
    std::printf("  CPU time, all threads  %9.2f ms\n", median(load_cpu_ms));
    std::printf("  read manifests         %9.2f ms  (locate + read + parse, one thread)\n", median(read_ms));
    std::printf("  parse manifests        %9.2f ms  (text in memory: toml++ and validation)\n", median(parse_ms));
    std::printf("bare dlopen              %9.2f ms\n", bare);
    std::printf("check system calls       %9.2f ms  (open, fstat, read, close of each manifest and library)\n",
                median(syscalls_ms));
    std::printf("init floor               %9.2f ms  (manifest read + toml++, file check, dlopen, init copying %zu "
                "registrations' strings; no registry)\n",
                median(floor_ms), floor_registrations);
    std::printf("ratio load_register_vs_dlopen %.2f\n", load / bare);
    std::printf("ratio load_register_cpu_vs_dlopen %.2f\n", median(load_cpu_ms) / bare);
    // The lowest load_register_vs_dlopen a loader that reads and checks the
    // files can reach here, with no parsing and no registration.
    std::printf("ratio syscall_floor_vs_dlopen %.2f\n", (bare + median(syscalls_ms)) / bare);
    // The same with each plugin's init run against a host that only copies
    // what it is passed: what is left of load_register_vs_dlopen above this
    // is the registry's own work.
    std::printf("ratio init_floor_vs_dlopen %.2f\n", median(floor_ms) / bare);
    // The registry's own factor, with dlopen's noise mostly divided out.
    std::printf("ratio load_register_vs_init_floor %.2f\n", load / median(floor_ms));
    std::printf("ratio list_vs_dlopen %.2f\n", list / bare);
    std::printf("ratio read_manifests_vs_dlopen %.2f\n", median(read_ms) / bare);
    return 0;
}
