// Cold compile and warm load of kernel modules on the CPU backend, side by
// side with `clang++-19 -O2 -c` run as a subprocess on the identical generated
// source (with and without a PCH of the runtime headers). Prints `ratio` lines:
//   ratio cold_<file>_inprocess_vs_subprocess        in-process / subprocess (no PCH either)
//   ratio cold_<file>_inprocess_pch_vs_subprocess    in-process with PCH / subprocess without
//   ratio cold_<file>_inprocess_pch_vs_subprocess_pch
//   ratio cold_<file>_units_vs_one_unit              the module's compile units, one thread each, / the
//                                                     whole generated source as one translation unit (wall time)
//   ratio cold_<file>_units_cpu_vs_one_unit          the same in CPU time (what splitting costs)
//   ratio cold_<file>_largest_unit_cpu_vs_one_unit   the largest unit's median CPU time / one unit's (the
//                                                     wall time on an idle machine with a core per unit)
//   ratio cold_<file>_dense_only_cpu_vs_with_strided CPU time of what a load compiles (the dense
//                                                     copies) / of the whole text (strided copies too)
//   ratio warm_<file>_same_process_vs_cold           warm load / cold compile (PCH)
//   ratio warm_<file>_new_process_vs_cold
//   ratio warm_<file>_new_process_vs_1ms              the issue-20 goal: <= 1
//   ratio warm_<file>_new_process_with_host_vs_1ms    the same, Host construction included
//   ratio warm_<file>_first_reuse_new_process_vs_1ms  the first new process to load it from the cache,
//                                                     which links its object into the JIT (and keeps it
//                                                     as a shared object, which the others map)
//
//   build/bin/bench_cpu_compile [--kernels bench/kernels] [--repeat 5]
#include "weft/backend/cpu_compiler.hpp"
#include "weft/cache/cache.hpp"
#include "weft/codegen/cpp_emitter.hpp"
#include "weft/host/host.hpp"
#include "weft/support/file.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

weft::HostOptions host_options(const fs::path &cache) {
    weft::HostOptions o;
    o.use_environment = false;
    o.cache_dir = cache;
    o.quiet = true;
    // Measured with the PCH the cache builds (bench/vs_warp reports the
    // prebuilt one's effect on a cold compile).
    o.prebuilt_dir = fs::path();
    return o;
}

/// Removes compiled modules but keeps the PCH and runtime headers.
void drop_entries(const fs::path &cache) {
    for (const char *dir : {"v1/entries", "v1/keys", "v1/generated", "v1/tmp"}) fs::remove_all(cache / dir);
}

double shell_ms(const std::string &command) {
    const auto t0 = Clock::now();
    if (std::system(command.c_str()) != 0) {
        std::fprintf(stderr, "bench_cpu_compile: command failed: %s\n", command.c_str());
        std::exit(1);
    }
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double thread_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

} // namespace

int main(int argc, char **argv) {
    fs::path kernels = "bench/kernels";
    int repeat = 5;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--kernels") && i + 1 < argc) kernels = argv[++i];
        else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--warm-child") && i + 2 < argc) {
            // A new process loading a cached module: prints its load time, and
            // the time from before the Host was constructed.
            const auto t0 = Clock::now();
            weft::Host host(host_options(argv[i + 2]));
            weft::CompiledModule m = host.load_module(argv[i + 1]);
            const double with_host = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
            std::printf("%.3f %d %.3f\n", m.load_ms(), m.from_cache() ? 1 : 0, with_host);
            return 0;
        }
    }
    const fs::path self = fs::canonical("/proc/self/exe");
    const std::string clang = weft::backend::clang_executable().string();
    std::printf("bench_cpu_compile: medians of %d; subprocess: %s\n", repeat, clang.c_str());

    for (const char *file : {"saxpy.py", "ten_kernels.py"}) {
        const fs::path source = kernels / file;
        const std::string tag = fs::path(file).stem().string();
        const fs::path cache = fs::temp_directory_path() / ("weft_bench_compile_" + tag);
        std::vector<double> cold, cold_pch, sub, sub_pch, warm_same, warm_new, warm_new_host, warm_first, warm_first_host;
        fs::path generated, rt_dir;
        for (int r = 0; r < repeat; ++r) {
            fs::remove_all(cache);
            {
                weft::Host host(host_options(cache));
                weft::ModuleLoadOptions no_pch;
                no_pch.use_pch = false;
                weft::CompiledModule m = host.load_module(source, no_pch);
                cold.push_back(m.load_ms());
                generated = m.generated_source_path();
            }
            drop_entries(cache);
            {
                weft::Host host(host_options(cache));
                host.load_module(source); // builds the PCH once
            }
            drop_entries(cache);
            weft::Host host(host_options(cache));
            weft::CompiledModule m = host.load_module(source);
            cold_pch.push_back(m.load_ms());
            generated = m.generated_source_path();
            // The same module again in this host: check + generate + hash, then the loaded module is reused.
            const auto t_warm = Clock::now();
            host.load_module(source);
            warm_same.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t_warm).count());
            // New processes with the cache populated. The first to load the
            // module from the cache links its object into the JIT and keeps it
            // as a shared object (HostOptions::cpu_shared_objects); the ones
            // after it map that.
            for (int child = 0; child < 2; ++child) {
                const std::string cmd =
                    "'" + self.string() + "' --warm-child '" + source.string() + "' '" + cache.string() + "'";
                if (FILE *p = popen(cmd.c_str(), "r")) {
                    double ms = 0, with_host = 0;
                    int cached = 0;
                    if (std::fscanf(p, "%lf %d %lf", &ms, &cached, &with_host) == 3 && cached) {
                        (child == 0 ? warm_first : warm_new).push_back(ms);
                        (child == 0 ? warm_first_host : warm_new_host).push_back(with_host);
                    }
                    pclose(p);
                }
            }
            for (const auto &e : fs::directory_iterator(cache / "v1" / "runtime-headers"))
                if (e.is_directory() && e.path().filename().string()[0] != '.') rt_dir = e.path();
        }
        // The same generated source through clang++ as a subprocess, same flags.
        // A load compiles the kernels' dense copies only (WEFT_STRIDED=-1; the
        // strided ones when a launch first needs them): so do these compiles.
        const std::string dense_only = std::string(weft::codegen::strided_macro) + "=" +
                                       std::to_string(weft::codegen::strided_dense_only);
        const std::string flags = "-std=c++17 -O2 -fno-exceptions -fno-rtti -fPIC -march=x86-64 -w -D" + dense_only +
                                  " -I'" + rt_dir.string() + "'";
        const fs::path obj = cache / "sub.o", pch = cache / "sub_runtime.pch";
        shell_ms(clang + " " + flags + " -x c++-header '" + (rt_dir / "weft/rt/runtime.h").string() + "' -o '" + pch.string() + "'");
        for (int r = 0; r < repeat; ++r) {
            sub.push_back(shell_ms(clang + " " + flags + " -c '" + generated.string() + "' -o '" + obj.string() + "'"));
            sub_pch.push_back(shell_ms(clang + " " + flags + " -include-pch '" + pch.string() + "' -c '" + generated.string() +
                                       "' -o '" + obj.string() + "'"));
        }
        // The generated source compiled in process as one translation unit and
        // as the compile units a load compiles (their texts are in the cache's
        // unit entries), one per thread, alternately, with the cache's PCH.
        const std::string text = weft::read_input_file(generated, 256u << 20, "generated source");
        std::vector<std::string> units;
        const std::string stem = fs::path(file).stem().string();
        for (const weft::CacheEntryInfo &e : weft::ArtifactCache(cache).list())
            if (e.module == stem && std::find(e.targets.begin(), e.targets.end(), "cpu-unit") != e.targets.end())
                units.push_back(weft::read_input_file(e.directory / "module.src", 256u << 20, "unit source"));
        weft::backend::CpuCompileOptions unit;
        unit.weft_include_dirs = {rt_dir};
        unit.defines = {dense_only};
        for (const auto &e : fs::directory_iterator(cache / "v1" / "pch"))
            if (e.path().extension() == ".pch") unit.pch = e.path();
        const auto compile_units = [&](const weft::backend::CpuCompileOptions &o) {
            std::vector<std::thread> threads;
            for (std::size_t i = 0; i < units.size(); ++i)
                threads.emplace_back([&, i] {
                    weft::backend::CpuCompileOptions mine = o;
                    mine.part = static_cast<int>(i) + 1;
                    (void)weft::backend::compile_to_object(units[i], mine);
                });
            for (std::thread &t : threads) t.join();
        };
        std::vector<double> one_unit, in_units;
        for (int r = 0; r < repeat; ++r) {
            auto t0 = Clock::now();
            (void)weft::backend::compile_to_object(text, unit);
            one_unit.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
            t0 = Clock::now();
            compile_units(unit);
            in_units.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        }
        std::printf("%-16s compile of the generated source: one unit %7.1f ms, %zu compile units on %zu threads (%u cores) %7.1f ms\n",
                    file, median(one_unit), units.size(), units.size(), std::thread::hardware_concurrency(),
                    median(in_units));
        // CPU time, which other load on the machine does not inflate: what
        // the units cost together, and the largest, which bounds the wall time
        // on an idle machine with a core per unit, and what an edit of one
        // kernel recompiles. The largest is the unit with the largest median.
        double whole_cpu = 0, units_cpu = 0, largest_cpu = 0;
        std::vector<std::vector<double>> unit_cpu(units.size());
        for (int r = 0; r < repeat; ++r) {
            double t0 = thread_cpu_ms();
            (void)weft::backend::compile_to_object(text, unit);
            whole_cpu += (thread_cpu_ms() - t0) / repeat;
            for (std::size_t k = 0; k < units.size(); ++k) {
                weft::backend::CpuCompileOptions o = unit;
                o.part = static_cast<int>(k) + 1;
                t0 = thread_cpu_ms();
                (void)weft::backend::compile_to_object(units[k], o);
                const double ms = thread_cpu_ms() - t0;
                units_cpu += ms / repeat;
                unit_cpu[k].push_back(ms);
            }
        }
        std::string each_unit;
        std::vector<double> unit_medians;
        for (std::size_t k = 0; k < unit_cpu.size(); ++k) {
            const double m = median(unit_cpu[k]);
            unit_medians.push_back(m);
            largest_cpu = std::max(largest_cpu, m);
            char item[32];
            std::snprintf(item, sizeof item, "%s%.1f", k ? ", " : "", m);
            each_unit += item;
        }
        // What any compile unit costs before its own code: the runtime header
        // through the PCH, a translation unit and an (empty) object.
        std::vector<double> bare;
        for (int r = 0; r < repeat; ++r) {
            const double t0 = thread_cpu_ms();
            (void)weft::backend::compile_to_object("#include <weft/rt/runtime.h>\n", unit);
            bare.push_back(thread_cpu_ms() - t0);
        }
        std::printf("%-16s a compile unit with no code (the runtime header through the PCH) %7.1f ms CPU\n", file,
                    median(bare));
        // What compiling the strided copies too (an AOT build, or the eager
        // compile before issue 20) costs: CPU time of the whole text.
        double whole_text_cpu = 0, dense_text_cpu = 0;
        for (int r = 0; r < repeat; ++r)
            for (int variant : {weft::codegen::strided_whole, weft::codegen::strided_dense_only}) {
                weft::backend::CpuCompileOptions o = unit;
                o.defines = {std::string(weft::codegen::strided_macro) + "=" + std::to_string(variant)};
                const double t0 = thread_cpu_ms();
                (void)weft::backend::compile_to_object(text, o);
                (variant == weft::codegen::strided_whole ? whole_text_cpu : dense_text_cpu) += (thread_cpu_ms() - t0) / repeat;
            }
        std::printf("%-16s CPU time of the whole text: dense copies only %7.1f ms, with the strided copies %7.1f ms\n", file,
                    dense_text_cpu, whole_text_cpu);
        std::printf("ratio cold_%s_dense_only_cpu_vs_with_strided %.3f\n", tag.c_str(), dense_text_cpu / whole_text_cpu);
        if (!units.empty()) {
            std::printf("%-16s CPU time: one unit %7.1f ms; %zu compile units %7.1f ms together, the largest %7.1f ms, "
                        "the median %7.1f ms (each: %s)\n",
                        file, whole_cpu, units.size(), units_cpu, largest_cpu, median(unit_medians), each_unit.c_str());
            std::printf("ratio cold_%s_units_cpu_vs_one_unit %.3f\n", tag.c_str(), units_cpu / whole_cpu);
            std::printf("ratio cold_%s_largest_unit_cpu_vs_one_unit %.3f\n", tag.c_str(), largest_cpu / whole_cpu);
            std::printf("ratio cold_%s_units_vs_one_unit %.3f\n", tag.c_str(), median(in_units) / median(one_unit));
        }
        const double c = median(cold), cp = median(cold_pch), s = median(sub), sp = median(sub_pch);
        const double ws = median(warm_same), wn = warm_new.empty() ? -1 : median(warm_new);
        const double wh = warm_new_host.empty() ? -1 : median(warm_new_host);
        const double wf = warm_first.empty() ? -1 : median(warm_first);
        const double wfh = warm_first_host.empty() ? -1 : median(warm_first_host);
        std::printf("%-16s cold in-process %7.1f ms, with PCH %7.1f ms | clang++ subprocess %7.1f ms, with PCH %7.1f ms\n",
                    file, c, cp, s, sp);
        std::printf("%-16s warm load: same process %6.2f ms, new process %6.2f ms (%6.2f ms with the Host's construction); "
                    "the first new process to reuse it (links into the JIT) %6.2f ms (%6.2f ms)\n",
                    file, ws, wn, wh, wf, wfh);
        std::printf("ratio cold_%s_inprocess_vs_subprocess %.3f\n", tag.c_str(), c / s);
        std::printf("ratio cold_%s_inprocess_pch_vs_subprocess %.3f\n", tag.c_str(), cp / s);
        std::printf("ratio cold_%s_inprocess_pch_vs_subprocess_pch %.3f\n", tag.c_str(), cp / sp);
        std::printf("ratio warm_%s_same_process_vs_cold %.4f\n", tag.c_str(), ws / cp);
        if (wn >= 0) {
            std::printf("ratio warm_%s_new_process_vs_cold %.4f\n", tag.c_str(), wn / cp);
            std::printf("ratio warm_%s_new_process_vs_1ms %.3f\n", tag.c_str(), wn / 1.0);
            std::printf("ratio warm_%s_new_process_with_host_vs_1ms %.3f\n", tag.c_str(), wh / 1.0);
        }
        if (wf >= 0) {
            std::printf("ratio warm_%s_first_reuse_new_process_vs_1ms %.3f\n", tag.c_str(), wf / 1.0);
            std::printf("ratio warm_%s_first_reuse_new_process_with_host_vs_1ms %.3f\n", tag.c_str(), wfh / 1.0);
        }
        fs::remove_all(cache);
    }
    return 0;
}
