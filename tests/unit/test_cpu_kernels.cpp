// Kernels that run: front end -> codegen -> in-process Clang -> ORC JIT ->
// launch on the CPU, with concrete results, the cache and the errors a user hits.
#include "test_support.hpp"

#include "weft/host/host.hpp"
#include "weft/kernel/diagnostics.hpp"
#include "weft/runtime/sync.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <thread>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace weft;
using weft::test::message_of;
namespace fs = std::filesystem;

namespace {

struct TempCache {
    fs::path path;
    explicit TempCache(const std::string &name) : path(fs::temp_directory_path() / ("weft_cpu_" + name)) {
        fs::remove_all(path);
    }
    ~TempCache() { fs::remove_all(path); }
};

HostOptions options_for(const TempCache &cache, unsigned threads = 0) {
    HostOptions o = weft::test::test_host_options();
    o.cache_dir = cache.path;
    o.quiet = true;
    o.threads = threads;
    return o;
}

const Type f32 = Type::scalar(Scalar::Float32);
const Type i32 = Type::scalar(Scalar::Int32);

const char *saxpy = R"(import warp as wp

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]
)";

} // namespace

TEST_CASE("saxpy compiles in process, runs on the CPU, and a second host takes it from the cache") {
    TempCache cache("saxpy");
    std::string hash;
    {
        Host host(options_for(cache));
        CompiledModule m = host.load_module_source("saxpy", saxpy);
        CHECK_FALSE(m.from_cache());
        CHECK(m.kernel_names() == std::vector<std::string>{"saxpy"});
        hash = m.hash();
        std::vector<float> xs(10000), ys(10000);
        for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i), ys[i] = 1.0f;
        Array x = Array::from_vector(f32, xs), y = Array::from_vector(f32, ys);
        m.kernel("saxpy").launch({10000}, {x, y, 2.0f});
        const std::vector<float> out = y.to_vector<float>();
        CHECK(out[0] == 1.0f);
        CHECK(out[1] == 3.0f);
        CHECK(out[9999] == 19999.0f);
        CHECK(fs::exists(m.artifact_path()));
        std::ifstream src(m.generated_source_path());
        std::string text((std::istreambuf_iterator<char>(src)), std::istreambuf_iterator<char>());
        CHECK_THAT(text, Catch::Contains("extern \"C\" void wk5saxpy_cpu("));
    }
    Host again(options_for(cache));
    CompiledModule m = again.load_module_source("saxpy", saxpy);
    CHECK(m.from_cache());
    CHECK(m.hash() == hash);
    Array x = Array::from_vector(f32, std::vector<float>{1, 2}), y = Array::from_vector(f32, std::vector<float>{10, 20});
    m.kernel("saxpy").launch({2}, {x, y, 3.0f});
    CHECK(y.to_vector<float>() == std::vector<float>{13, 26});
}

TEST_CASE("control flow, functions, tuples, structs, vectors and 2-D launches give exact results") {
    TempCache cache("mixed");
    Host host(options_for(cache));
    CompiledModule m = host.load_module_source("mixed", R"(import warp as wp

@wp.struct
class Params:
    scale: float
    offset: wp.vec3

@wp.func
def collatz(n: int) -> int:
    steps = 0
    x = n
    while x != 1:
        if x % 2 == 0:
            x = x // 2
        else:
            x = 3 * x + 1
        steps += 1
    return steps

@wp.func
def min_max(a: float, b: float):
    if a < b:
        return a, b
    return b, a

@wp.kernel
def steps(out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = collatz(i + 1)

@wp.kernel
def grid(out: wp.array2d(dtype=int)):
    i, j = wp.tid()
    out[i, j] = i * 10 + j

@wp.kernel
def transform(p: Params, v: wp.array(dtype=wp.vec3), lo: wp.array(dtype=float)):
    i = wp.tid()
    v[i] = v[i] * p.scale + p.offset
    a, b = min_max(v[i][0], v[i][1])
    lo[i] = a
    n = float(0.0)
    for k in range(3):
        if k == 1:
            continue
        n += v[i][k]
    lo[i] = lo[i] + n * 0.0 + wp.select(0 < i < 2, 0.0, 100.0)
)");
    Array out = Array::zeros(i32, {6});
    m.kernel("steps").launch({6}, {out});
    CHECK(out.to_vector<int>() == std::vector<int>{0, 1, 7, 2, 5, 8});

    Array g = Array::zeros(i32, {3, 4});
    m.kernel("grid").launch({3, 4}, {g});
    CHECK(g.to_vector<int>() == std::vector<int>{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
    CHECK_THAT(message_of<LaunchError>([&] { m.kernel("grid").launch({12}, {g}); }),
               Catch::Contains("kernel 'grid' unpacks tid() into 2 values; launch it with a 2-D dimension, not 1-D"));

    struct P {
        float scale;
        float offset[3];
    } params{2.0f, {1.0f, -1.0f, 0.5f}};
    std::vector<float> vs{1, 2, 3, 4, 0, 6, -1, -2, -3};
    Array v = Array::from_host(Type::vector(Scalar::Float32, 3), {3}, vs.data(), vs.size() * sizeof(float));
    Array lo = Array::zeros(f32, {3});
    const Kernel transform = m.kernel("transform");
    const Type ptype = transform.params()[0].type;
    CHECK(ptype.name() == "Params");
    CHECK(ptype.size() == sizeof(P));
    CHECK_THAT(message_of<UserError>([&] { transform.launch({3}, {KernelArg(1.0f), v, lo}); }),
               Catch::Contains("kernel 'transform'") && Catch::Contains("'p'"));
    transform.launch({3}, {KernelArg::value(ptype, &params, sizeof params), v, lo});
    std::vector<float> vout(9);
    v.copy_to_host(vout.data(), vout.size() * sizeof(float));
    CHECK(vout == std::vector<float>{3, 3, 6.5f, 9, -1, 12.5f, -1, -5, -5.5f});
    CHECK(lo.to_vector<float>() == std::vector<float>{3, 99, -5});
}

TEST_CASE("compile errors in a plugin-free module name the .py line - the host stays usable") {
    TempCache cache("errors");
    Host host(options_for(cache));
    const std::string bad_kernel = "import warp as wp\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    a[0] = undefined\n";
    CHECK_THAT(message_of<kernel::KernelSourceError>([&] { host.load_module_source("bad", bad_kernel); }),
               Catch::Contains("bad.py:4:12: error: name 'undefined' is not defined"));
    // A preamble that does not compile: the error names the module's preamble line, not generated code.
    ModuleLoadOptions o;
    o.build_options = ModuleBuildOptions{};
    o.build_options->extra_cpu_preamble = "int broken = ;\n";
    const std::string message = message_of<UserError>([&] { host.load_module_source("pre", saxpy, o); });
    CHECK_THAT(message, Catch::Contains("module 'pre' preamble:1:"));
    CHECK_THAT(message, Catch::Contains("generated source, for reference: "));
    // Still usable.
    CompiledModule m = host.load_module_source("saxpy", saxpy);
    Array x = Array::from_vector(f32, std::vector<float>{1}), y = Array::from_vector(f32, std::vector<float>{1});
    m.kernel("saxpy").launch({1}, {x, y, 1.0f});
    CHECK(y.to_vector<float>() == std::vector<float>{2});
    CHECK_THAT(message_of<UserError>([&] { m.kernel("nope"); }),
               Catch::Contains("module 'saxpy' has no kernel 'nope' (its kernels: saxpy)"));
}

TEST_CASE("a failing expect_* reports and fails the launch") {
    TempCache cache("expect");
    Host host(options_for(cache));
    CompiledModule m = host.load_module_source("checks", R"(import warp as wp
@wp.kernel
def check(a: wp.array(dtype=int)):
    i = wp.tid()
    wp.expect_eq(a[i], 1)
)");
    Array ok = Array::from_vector(i32, std::vector<int>{1, 1, 1});
    m.kernel("check").launch({3}, {ok});
    Array bad = Array::from_vector(i32, std::vector<int>{1, 5, 1});
    CHECK_THAT(message_of<LaunchError>([&] { m.kernel("check").launch({3}, {bad}); }),
               Catch::Contains("kernel 'check' (module 'checks'): 1 expect_* check failed"));
    m.kernel("check").launch({3}, {ok}); // the counter was reset
}

TEST_CASE("a launch observer sees this thread's accepted launches, in order, and none that were refused") {
    TempCache cache("observer");
    Host host(options_for(cache));
    CompiledModule m = host.load_module_source("observed", R"(import warp as wp
@wp.kernel
def check(a: wp.array(dtype=int), k: int):
    i = wp.tid()
    wp.expect_eq(a[i], k)
)");
    struct Seen {
        std::vector<std::string> kernels;
        std::vector<std::int64_t> sizes;
        std::vector<int> ks;
    } seen;
    const LaunchObserver mine{[](void *context, const Kernel &kernel, const std::vector<std::int64_t> &dim,
                                 const std::vector<KernelArg> &args, const LaunchOptions &) {
                                  auto &s = *static_cast<Seen *>(context);
                                  s.kernels.push_back(kernel.name());
                                  s.sizes.push_back(dim.at(0));
                                  int k = 0;
                                  std::memcpy(&k, args.at(1).bytes().data(), sizeof k);
                                  s.ks.push_back(k);
                              },
                              &seen};
    const LaunchObserver before = exchange_launch_observer(mine);
    Array ones = Array::from_vector(i32, std::vector<int>{1, 1, 1});
    m.kernel("check").launch({3}, {ones, 1});
    m.kernel("check").launch({2}, {ones, 1});
    CHECK_THROWS_AS(m.kernel("check").launch({3}, {ones, 2}), LaunchError); // failed checks: not seen
    CHECK_THROWS_AS(m.kernel("check").launch({3}, {ones}), LaunchError);    // bad arguments: not seen
    // Another thread's launches are its own.
    std::thread([&] { m.kernel("check").launch({1}, {ones, 1}); }).join();
    const LaunchObserver back = exchange_launch_observer(before);
    CHECK(back.context == &seen);
    m.kernel("check").launch({3}, {ones, 1}); // no observer now
    CHECK(seen.kernels == std::vector<std::string>{"check", "check"});
    CHECK(seen.sizes == std::vector<std::int64_t>{3, 2});
    CHECK(seen.ks == std::vector<int>{1, 1});
}

TEST_CASE("results without atomics do not depend on the thread count - atomics are exact under threads") {
    const char *source = R"(import warp as wp
@wp.kernel
def work(x: wp.array(dtype=float), total: wp.array(dtype=int)):
    i = wp.tid()
    x[i] = wp.sin(float(i) * 0.001) * 3.0 + x[i]
    total[0] += 1
)";
    std::vector<std::vector<float>> results;
    for (unsigned threads : {1u, 2u, 7u}) {
        TempCache cache("threads" + std::to_string(threads));
        Host host(options_for(cache, threads));
        CompiledModule m = host.load_module_source("work", source);
        Array x = Array::zeros(f32, {100000});
        Array total = Array::zeros(i32, {1});
        m.kernel("work").launch({100000}, {x, total});
        CHECK(total.to_vector<int>()[0] == 100000);
        results.push_back(x.to_vector<float>());
    }
    CHECK(results[0] == results[1]);
    CHECK(results[0] == results[2]);
}

TEST_CASE("bfloat16 kernels round bit for bit as warp-lang's - its atomics are exact under threads") {
    TempCache cache("bfloat16");
    Host host(options_for(cache, 4));
    const Type bf16 = Type::scalar(Scalar::BFloat16);
    CompiledModule m = host.load_module(fs::path(WEFT_KERNEL_TEST_DIR) / "corpus" / "bfloat16_storage.py");
    Array out = Array::zeros(bf16, {10});
    m.kernel("rounding").launch({1}, {out});
    // The bits warp-lang 1.19 stores for the same kernel on the CPU.
    CHECK(out.to_vector<std::uint16_t>() == std::vector<std::uint16_t>{0x3f80, 0x3f82, 0x3dcd, 0xff80, 0x0001, 0x3f2b,
                                                                       0x4380, 0x3dcd, 0x3f80, 0xc780});

    CompiledModule counting = host.load_module_source("bf16_counting", R"(import warp as wp
@wp.kernel
def count(total: wp.array(dtype=wp.bfloat16), peak: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    wp.atomic_add(total, 0, wp.bfloat16(1.0))
    wp.atomic_sub(total, 1, wp.bfloat16(1.0))
    wp.atomic_max(peak, 0, wp.bfloat16(float(i)))
    wp.atomic_min(peak, 1, wp.bfloat16(float(i)))
)");
    Array total = Array::zeros(bf16, {2});
    Array peak = Array::zeros(bf16, {2});
    counting.kernel("count").launch({100000}, {total, peak});
    // 256 + 1 is a tie that rounds back to 256 (and -256 - 1 to -256): the
    // counts stop there whatever order the threads add in.
    CHECK(total.to_vector<std::uint16_t>() == std::vector<std::uint16_t>{0x4380, 0xc380});
    CHECK(peak.to_vector<std::uint16_t>() == std::vector<std::uint16_t>{0x47c3, 0x0000}); // 99999 rounds to 99840
}

TEST_CASE("a plugin whose declared field offset disagrees with its header fails naming plugin, type and field") {
    TempCache cache("lying");
    Host host(options_for(cache));
    host.load(weft::test::plugin_dir("lying_offset"));
    const std::string source = R"(import warp as wp
@wp.kernel
def k(p: wp.array(dtype=lie.Pair)):
    i = wp.tid()
    q = p[i]
    q.a = 1.0
    p[i] = q
)";
    const std::string message = message_of<UserError>([&] { host.load_module_source("lying", source); });
    CHECK_THAT(message, Catch::Contains("plugin 'lying_offset': native type lie::Pair, field 'a': the plugin declares "
                                        "offset 0, the header disagrees"));
    // The host stays usable.
    CompiledModule m = host.load_module_source("saxpy", saxpy);
    CHECK(m.kernel_names() == std::vector<std::string>{"saxpy"});
}

TEST_CASE("a corrupt precompiled header is rebuilt with one warning") {
    TempCache cache("pch");
    std::vector<std::string> log;
    // The cache's own PCH, not the build's prebuilt one (test_prebuilt_pch.cpp).
    const auto cache_pch = [&] {
        HostOptions o = options_for(cache);
        o.prebuilt_dir = fs::path();
        return o;
    };
    {
        Host host(cache_pch());
        host.load_module_source("saxpy", saxpy);
    }
    int corrupted = 0;
    for (const auto &e : fs::recursive_directory_iterator(cache.path))
        if (e.path().extension() == ".pch") {
            std::ofstream(e.path(), std::ios::binary | std::ios::trunc) << "not a precompiled header";
            ++corrupted;
        }
    REQUIRE(corrupted == 1);
    HostOptions o = cache_pch();
    o.log_sink = [&](LogLevel level, std::string_view, std::string_view message) {
        if (level == LogLevel::Warning) log.emplace_back(message);
    };
    Host host(o);
    CompiledModule m = host.load_module_source("other", std::string(saxpy) + "\n# another module\n");
    CHECK_FALSE(m.from_cache());
    REQUIRE(log.size() == 1);
    CHECK_THAT(log[0], Catch::Contains("rebuilding the precompiled runtime header"));
    Array x = Array::from_vector(f32, std::vector<float>{1}), y = Array::from_vector(f32, std::vector<float>{1});
    m.kernel("saxpy").launch({1}, {x, y, 4.0f});
    CHECK(y.to_vector<float>() == std::vector<float>{5});
}

TEST_CASE("modules compile on several threads at once") {
    TempCache cache("threads_compile");
    Host host(options_for(cache));
    std::vector<std::string> errors(4);
    std::vector<std::optional<CompiledModule>> modules(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            try {
                // Different sources: four real compiles, no shared cache entry.
                modules[static_cast<std::size_t>(t)] = host.load_module_source(
                    "m" + std::to_string(t), std::string(saxpy) + "\n# variant " + std::to_string(t) + "\n");
            } catch (const std::exception &e) {
                errors[static_cast<std::size_t>(t)] = e.what();
            }
        });
    for (std::thread &th : threads) th.join();
    for (int t = 0; t < 4; ++t) {
        INFO(errors[static_cast<std::size_t>(t)]);
        REQUIRE(modules[static_cast<std::size_t>(t)]);
        Array x = Array::from_vector(f32, std::vector<float>{1}), y = Array::from_vector(f32, std::vector<float>{0});
        modules[static_cast<std::size_t>(t)]->kernel("saxpy").launch({1}, {x, y, static_cast<float>(t)});
        CHECK(y.to_vector<float>()[0] == static_cast<float>(t));
    }
}

TEST_CASE("review regressions: range bounds once, 64-bit loop counters, rebound parameters") {
    TempCache cache("review");
    Host host(options_for(cache));
    CompiledModule m = host.load_module_source("review", R"(import warp as wp

@wp.func
def g(y: int):
    return y * 2, y + 1

@wp.func
def f(x: int) -> int:
    for i in range(3):
        y = x + 1
        x, z = g(y)
    return x

@wp.func
def h(x: int) -> int:
    for x in range(0):
        pass
    return x

@wp.kernel
def k(out: wp.array(dtype=int), n: int):
    stop = 3
    c = 0
    for i in range(stop):
        stop = 10
        c += 1
    out[0] = c
    step = 1
    d = 0
    for i in range(0, 4, step):
        step = 3
        d += 1
    out[1] = d
    e = 0
    for i in range(2147483640, 2147483647, 5):
        e += 1
    out[2] = e
    q = 0
    for j in range(wp.int8(100), wp.int8(127), wp.int8(20)):
        q += 1
    out[3] = q
    out[4] = f(1)
    out[5] = h(42)
    for i in range(n):
        n = 0
        out[6] = out[6] + 1
)");
    Array out = Array::zeros(i32, {7});
    m.kernel("k").launch({1}, {out, 5});
    // f(1): y=2 -> x=4; y=5 -> x=10; y=11 -> x=22.
    CHECK(out.to_vector<int>() == std::vector<int>{3, 4, 2, 2, 22, 42, 5});
}

TEST_CASE("review regressions: errors the checker now reports") {
    TempCache cache("review_errors");
    Host host(options_for(cache));
    auto error_of = [&](const std::string &body) {
        return message_of<kernel::KernelSourceError>(
            [&] { host.load_module_source("bad", "import warp as wp\n" + body); });
    };
    CHECK_THAT(error_of("@wp.func\ndef maybe(x: int) -> int:\n    if x > 0:\n        return x * 3\n"),
               Catch::Contains("function 'maybe' must return int32 on every path"));
    CHECK_THAT(error_of("@wp.kernel\ndef k():\n    for i in range(0, 10, 0):\n        pass\n"),
               Catch::Contains("range() step must not be zero"));
    // 3.0 * X keeps X's float64.
    CompiledModule m = host.load_module_source("precision", R"(import warp as wp
X = wp.constant(wp.float64(0.1))
Y = 3.0 * X
@wp.kernel
def k(out: wp.array(dtype=wp.float64)):
    out[0] = Y
)");
    Array out = Array::zeros(Type::scalar(Scalar::Float64), {1});
    m.kernel("k").launch({1}, {out});
    CHECK(out.to_vector<double>()[0] == 3.0 * 0.1);
}

TEST_CASE("codegen options are in the hash - include dirs reach Clang after weft's own") {
    TempCache cache("options");
    Host host(options_for(cache));
    const std::string base = host.load_module_source("opts", saxpy).hash();
    ModuleLoadOptions o3;
    o3.opt_level = 3;
    ModuleLoadOptions fast;
    fast.fast_math = true;
    ModuleLoadOptions native;
    native.native_cpu = true;
    const std::string h3 = host.load_module_source("opts", saxpy, o3).hash();
    const std::string hf = host.load_module_source("opts", saxpy, fast).hash();
    CompiledModule mn = host.load_module_source("opts", saxpy, native);
    CHECK(h3 != base);
    CHECK(hf != base);
    CHECK(mn.hash() != base);
    CHECK(std::set<std::string>{base, h3, hf, mn.hash()}.size() == 4);
    Array x = Array::from_vector(f32, std::vector<float>{2}), y = Array::from_vector(f32, std::vector<float>{1});
    mn.kernel("saxpy").launch({1}, {x, y, 3.0f}); // -march=native code runs here
    CHECK(y.to_vector<float>() == std::vector<float>{7});

    // A module's include dir: its preamble includes a header only found there.
    const fs::path dir = cache.path / "include";
    fs::create_directories(dir);
    std::ofstream(dir / "wt_include_check.h") << "#define WT_INCLUDE_VALUE 7\n";
    ModuleLoadOptions with_dir;
    with_dir.build_options = ModuleBuildOptions{};
    with_dir.build_options->extra_cpu_include_dirs = {dir.string()};
    with_dir.build_options->extra_cpu_preamble =
        "#include \"wt_include_check.h\"\nstatic_assert(WT_INCLUDE_VALUE == 7, \"include dir\");\n";
    CHECK_FALSE(host.load_module_source("with_dir", saxpy, with_dir).kernel_names().empty());
    ModuleLoadOptions without_dir = with_dir;
    without_dir.build_options->extra_cpu_include_dirs.clear();
    CHECK_THAT(message_of<UserError>([&] { host.load_module_source("without_dir", saxpy, without_dir); }),
               Catch::Contains("module 'without_dir' preamble:1:") && Catch::Contains("wt_include_check.h"));
}

namespace {

const char *endless = R"(import warp as wp

@wp.kernel
def spin_on_flag(flag: wp.array(dtype=int)):
    while flag[0] == 0:
        pass

@wp.kernel
def spin_forever(flag: wp.array(dtype=int)):
    x = flag[0]
    while True:
        x = x + 1

@wp.kernel
def wait_for_flag(flag: wp.array(dtype=int), out: wp.array(dtype=int)):
    while wp.atomic_add(flag, 0, 0) == 0:
        pass
    out[0] = 7
)";

} // namespace

TEST_CASE("a loop without side effects spins as the kernel says: -O2 does not delete it") {
    TempCache cache("endless");
    for (const char *kernel : {"spin_on_flag", "spin_forever"}) {
        INFO(kernel);
        int ready[2];
        REQUIRE(::pipe(ready) == 0);
        // In a child process: a kernel that never ends cannot be stopped in this one.
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            ::close(ready[0]);
            try {
                Host host(options_for(cache, 1));
                CompiledModule m = host.load_module_source("endless", endless);
                Array flag = Array::from_vector(i32, std::vector<std::int32_t>{0});
                if (::write(ready[1], "L", 1) != 1) ::_exit(3);
                m.kernel(kernel).launch({1}, {flag});
            } catch (...) {
                ::_exit(4);
            }
            ::_exit(0); // the launch returned: the loop was deleted
        }
        ::close(ready[1]);
        char c = 0;
        const bool loaded = ::read(ready[0], &c, 1) == 1;
        ::close(ready[0]);
        // Still running two seconds after the launch began.
        bool exited = false;
        int status = 0;
        for (int i = 0; loaded && i < 40 && !exited; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            exited = ::waitpid(child, &status, WNOHANG) == child;
        }
        if (!exited) {
            ::kill(child, SIGKILL);
            ::waitpid(child, &status, 0);
        }
        CHECK(loaded);
        CHECK_FALSE(exited);
    }
}

TEST_CASE("a launch that does not end: client_wait times out, and the stream runs later work once it ends") {
    TempCache cache("endless_stream");
    Host host(options_for(cache));
    CompiledModule m = host.load_module_source("endless", endless);
    Array flag = Array::from_vector(i32, std::vector<std::int32_t>{0});
    Array out = Array::from_vector(i32, std::vector<std::int32_t>{0});
    Stream stream;
    m.kernel("wait_for_flag").launch({1}, {flag, out}, &stream);
    Event event;
    event.record(stream);
    Sync sync(event);
    // The host is not wedged: a wait with a deadline returns.
    CHECK(sync.client_wait(200'000'000) == WaitResult::TimeoutExpired);
    __atomic_store_n(static_cast<std::int32_t *>(flag.data()), 1, __ATOMIC_SEQ_CST);
    CHECK(sync.client_wait(Sync::forever) == WaitResult::ConditionSatisfied);
    stream.synchronize();
    CHECK(out.to_vector<std::int32_t>() == std::vector<std::int32_t>{7});
    Array again = Array::from_vector(i32, std::vector<std::int32_t>{0});
    m.kernel("wait_for_flag").launch({1}, {flag, again}, &stream);
    stream.synchronize();
    CHECK(again.to_vector<std::int32_t>() == std::vector<std::int32_t>{7});
}

TEST_CASE("300 and, or, chained comparisons and elifs compile flat and keep Python's meaning") {
    // Each condition was one more nested C++ block: from 255, Clang's bracket
    // depth stopped the build; 50,000 overflowed the emitter's stack.
    constexpr int n = 300;
    std::string all_and, any_or, chain, elifs;
    for (int k = 0; k < n; ++k) {
        all_and += (k ? " and " : "") + std::string("count(c, ") + std::to_string(k) + ") > " + std::to_string(k - 1000);
        any_or += (k ? " or " : "") + std::string("count(c, ") + std::to_string(k) + ") == x";
        chain += (k ? " <= " : "") + std::string("count(c, ") + std::to_string(k) + ")";
        elifs += std::string(k ? "    elif" : "    if") + " x == " + std::to_string(k) + ":\n        r[3] = " +
                 std::to_string(k * 2) + "\n";
    }
    const std::string source = "import warp as wp\n\n"
                               "@wp.func\n"
                               "def count(c: wp.array(dtype=int), k: int) -> int:\n"
                               "    wp.atomic_add(c, 0, 1)\n"
                               "    return k\n\n"
                               "@wp.kernel\n"
                               "def chains(c: wp.array(dtype=int), r: wp.array(dtype=int), x: int):\n"
                               "    r[0] = 0\n    r[1] = 0\n    r[2] = 0\n    r[3] = -1\n"
                               "    if " + all_and + ":\n        r[0] = 1\n"
                               "    if " + any_or + ":\n        r[1] = 1\n"
                               "    if " + chain + ":\n        r[2] = 1\n" +
                               elifs + "    else:\n        r[3] = -7\n";
    TempCache cache("flat_chains");
    Host host(options_for(cache));
    CompiledModule m = host.load_module_source("chains", source);
    auto run = [&](int x) {
        Array c = Array::from_vector(i32, std::vector<std::int32_t>{0});
        Array r = Array::from_vector(i32, std::vector<std::int32_t>{0, 0, 0, 0});
        m.kernel("chains").launch({1}, {c, r, x});
        std::vector<std::int32_t> out = r.to_vector<std::int32_t>();
        out.push_back(c.to_vector<std::int32_t>()[0]); // operands evaluated
        return out;
    };
    // x = 17: every and-term (300), or-terms up to the match (18), the whole chain (300).
    CHECK(run(17) == std::vector<std::int32_t>{1, 1, 1, 34, 300 + 18 + 300});
    // x = 299: the last elif; x = 1000: no or-term matches, the else runs.
    CHECK(run(299) == std::vector<std::int32_t>{1, 1, 1, 598, 300 + 300 + 300});
    CHECK(run(1000) == std::vector<std::int32_t>{1, 0, 1, -7, 300 + 300 + 300});
}
