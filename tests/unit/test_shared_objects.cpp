// CPU modules kept as shared objects (issue 20): a module loaded from the
// cache gets a shared object linked beside its object, and later hosts map it
// with dlopen instead of linking the object into the JIT. Same results, the
// host calls and exit handlers through the stubs, strided copies linked
// against it, and a damaged one is a miss that is made again.
#include "skip.hpp"
#include "test_support.hpp"

#include "weft/backend/cpu_compiler.hpp"
#include "weft/cache/cache.hpp"
#include "weft/host/host.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <cstdlib>
#include <iterator>
#include <numeric>

using namespace weft;
using weft::test::message_of;
using weft::test::TempDir;
namespace fs = std::filesystem;

namespace {

const Type f32 = Type::scalar(Scalar::Float32);
const Type i32 = Type::scalar(Scalar::Int32);

// A dense kernel, a histogram (deferred atomics: host calls), and an expect_* check.
const char *source = R"(import warp as wp


@wp.kernel
def axpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def histogram(values: wp.array(dtype=int), bins: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(bins, values[i] % 7, 1)


@wp.kernel
def check(a: wp.array(dtype=int)):
    i = wp.tid()
    wp.expect_eq(a[i], 1)
)";

HostOptions options(const TempDir &cache, bool shared = true) {
    HostOptions o = weft::test::cached_host_options(cache.path);
    o.threads = 2;
    o.cpu_shared_objects = shared;
    return o;
}

struct Loaded {
    bool from_cache = false;
    bool from_shared_object = false;
};

/// Loads the module in a new host (as a new process would), runs every
/// kernel and checks the results; the host waits for its links when it ends.
Loaded load_and_run(const TempDir &cache, bool shared = true) {
    Host host(options(cache, shared));
    const CompiledModule m = host.load_module_source("kept", source);
    Loaded out{m.from_cache(), m.from_shared_object()};

    std::vector<float> xs(1000), ys(1000);
    std::iota(xs.begin(), xs.end(), 0.0f);
    std::iota(ys.begin(), ys.end(), 1.0f);
    Array x = Array::from_vector(f32, xs), y = Array::from_vector(f32, ys);
    m.kernel("axpy").launch({1000}, {x, y, 0.5f});
    const std::vector<float> got = y.to_vector<float>();
    for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == 0.5f * xs[i] + ys[i]);

    // 70,000 values: each bin of 7 gets 10,000, through the host's private copies.
    std::vector<int> values(70000);
    std::iota(values.begin(), values.end(), 0);
    Array v = Array::from_vector(i32, values), bins = Array::from_vector(i32, std::vector<int>(7, 0));
    m.kernel("histogram").launch({70000}, {v, bins});
    CHECK(bins.to_vector<int>() == std::vector<int>(7, 10000));

    Array ok = Array::from_vector(i32, std::vector<int>{1, 1, 1});
    m.kernel("check").launch({3}, {ok});
    Array bad = Array::from_vector(i32, std::vector<int>{1, 5, 1});
    CHECK_THAT(message_of<LaunchError>([&] { m.kernel("check").launch({3}, {bad}); }),
               Catch::Contains("1 expect_* check failed"));
    m.kernel("check").launch({3}, {ok}); // the counter, a global of the shared object, was reset
    return out;
}

std::optional<CachedArtifact> kept_shared_object(const TempDir &cache, const std::string &hash) {
    return ArtifactCache(cache.path).find("kept", hash, Target::cpu_shared_object());
}

std::string module_hash(const TempDir &cache) {
    Host host(options(cache, false));
    return host.load_module_source("kept", source).hash();
}

} // namespace

TEST_CASE("a module loaded from the cache is kept as a shared object, which later hosts map instead of linking") {
    if (!backend::shared_objects_supported()) weft::test::skip("no shared objects on this platform");
    TempDir cache("shared_objects");

    // Compiled: nothing is linked beside it (it may never be loaded again).
    const Loaded first = load_and_run(cache);
    CHECK_FALSE(first.from_cache);
    CHECK_FALSE(first.from_shared_object);
    const std::string hash = module_hash(cache);
    CHECK_FALSE(kept_shared_object(cache, hash).has_value());

    // Loaded from the cache: linked into the JIT, and a shared object made for next time.
    const Loaded second = load_and_run(cache);
    CHECK(second.from_cache);
    CHECK_FALSE(second.from_shared_object);
    const std::optional<CachedArtifact> so = kept_shared_object(cache, hash);
    REQUIRE(so.has_value());
    CHECK(so->path.filename().string().rfind("cpu-so.", 0) == 0);
    CHECK(so->content.compare(0, 4, "\x7f" "ELF") == 0);

    // Mapped, with the same results.
    const Loaded third = load_and_run(cache);
    CHECK(third.from_cache);
    CHECK(third.from_shared_object);

    // Off: linked into the JIT although the shared object is there.
    CHECK_FALSE(load_and_run(cache, false).from_shared_object);

    SECTION("a damaged shared object is a miss, removed, and made again") {
        {
            std::fstream f(so->path, std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(static_cast<std::streamoff>(so->content.size() / 2));
            f.put('\x55');
        }
        const Loaded damaged = load_and_run(cache);
        CHECK(damaged.from_cache);
        CHECK_FALSE(damaged.from_shared_object);
        const std::optional<CachedArtifact> again = kept_shared_object(cache, hash);
        REQUIRE(again.has_value());
        CHECK(load_and_run(cache).from_shared_object);
    }
    SECTION("a strided launch links the kernel's strided copy against the shared object") {
        Host host(options(cache));
        const CompiledModule m = host.load_module_source("kept", source);
        REQUIRE(m.from_shared_object());
        std::vector<float> xs(200), ys(200);
        std::iota(xs.begin(), xs.end(), 1.0f);
        std::iota(ys.begin(), ys.end(), 100.0f);
        Array xbase = Array::from_vector(f32, xs), ybase = Array::from_vector(f32, ys);
        Array x = xbase.view({100}, {8}), y = ybase.view({100}, {8}); // every other float
        m.kernel("axpy").launch({100}, {x, y, 2.0f});
        const std::vector<float> got = ybase.to_vector<float>();
        for (std::size_t i = 0; i < 200; ++i)
            REQUIRE(got[i] == (i % 2 == 0 ? 2.0f * xs[i] + ys[i] : ys[i]));
        // A dense launch still runs the shared object's code.
        Array xd = Array::from_vector(f32, xs), yd = Array::from_vector(f32, ys);
        m.kernel("axpy").launch({200}, {xd, yd, 3.0f});
        CHECK(yd.to_vector<float>()[7] == 3.0f * xs[7] + ys[7]);
    }
}

TEST_CASE("a shared object made by something else is refused, naming why") {
    if (!backend::shared_objects_supported()) weft::test::skip("no shared objects on this platform");
    // A valid library without the stubs' table: not one link_shared_object made.
    TempDir dir("shared_objects_foreign");
    const std::string object = [&] {
        // A static object: its constructor runs at load, its destructor at
        // unload (through the stubs' __cxa_atexit), not at process exit.
        const char *c = R"(extern "C" int weft_foreign(int x) { return x + 1; }
extern "C" { int weft_ctor_ran = 0; void (*weft_on_exit)(void) = nullptr; }
struct Guard {
    Guard() { weft_ctor_ran = 1; }
    ~Guard() { if (weft_on_exit) weft_on_exit(); }
};
static Guard guard;
)";
        backend::CpuCompileOptions o;
        const std::vector<char> bytes = backend::compile_to_object(c, o);
        return std::string(bytes.begin(), bytes.end());
    }();
    // Linked with the stubs: loads, and its function runs.
    const std::string linked = backend::link_shared_object(object, dir.path / "work");
    auto module = backend::load_shared_object(linked, "linked");
    CHECK(module->shared_object());
    CHECK(module->lookup_function<int(int)>("weft_foreign")(41) == 42);
    CHECK(*static_cast<int *>(module->lookup("weft_ctor_ran")) == 1);
    CHECK_THAT(message_of<backend::BackendError>([&] { (void)module->lookup("weft_absent"); }),
               Catch::Contains("module 'linked' has no symbol 'weft_absent'"));
    static int exits = 0;
    *static_cast<void (**)()>(module->lookup("weft_on_exit")) = [] { ++exits; };
    module.reset();
    CHECK(exits == 1);

    // Mapped three times at once: three modules, each with its own globals,
    // and no descriptor kept (each copy's /proc name is one no loaded library
    // holds, though the numbers of closed copies come back).
    const auto open_descriptors = [] {
        std::size_t n = 0;
        for (const auto &e : fs::directory_iterator("/proc/self/fd")) n += e.path().empty() ? 0 : 1;
        return n;
    };
    const std::size_t before = open_descriptors();
    std::vector<std::unique_ptr<backend::JitModule>> copies;
    for (int i = 0; i < 3; ++i) copies.push_back(backend::load_shared_object(linked, "copy" + std::to_string(i)));
    CHECK(open_descriptors() == before);
    int *first = static_cast<int *>(copies[0]->lookup("weft_ctor_ran"));
    CHECK(first != copies[1]->lookup("weft_ctor_ran"));
    CHECK(copies[1]->lookup("weft_ctor_ran") != copies[2]->lookup("weft_ctor_ran"));
    *first = 7;
    CHECK(*static_cast<int *>(copies[2]->lookup("weft_ctor_ran")) == 1);
    copies.clear();

    // A shared object without the stubs' table: not one link_shared_object made.
    {
        std::ofstream(dir.path / "plain.o", std::ios::binary) << object;
        const std::string command = "'" + backend::clang_executable().string() + "' -shared -nostdlib -o '" +
                                    (dir.path / "plain.so").string() + "' '" + (dir.path / "plain.o").string() + "'";
        REQUIRE(std::system(command.c_str()) == 0);
        std::ifstream in(dir.path / "plain.so", std::ios::binary);
        const std::string plain((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        CHECK_THAT(message_of<backend::BackendError>([&] { (void)backend::load_shared_object(plain, "plain"); }),
                   Catch::Contains("module 'plain' as a shared object: it has no host call table"));
    }
    // Not a shared object at all.
    CHECK_THAT(message_of<backend::BackendError>([&] { (void)backend::load_shared_object(object, "object"); }),
               Catch::Contains("module 'object' as a shared object: "));
    // A link that fails says what the linker said.
    CHECK_THAT(message_of<backend::BackendError>(
                   [&] { (void)backend::link_shared_object(std::string("not an object"), dir.path / "bad"); }),
               Catch::Contains("linking a shared object failed"));
}
