// The device-generic application API on the CPU (and its clear errors where
// no CUDA driver is): Device, arrays that carry their device and check host
// element types, one launch with lossless integer arguments, launch options
// with a stream. The same calls on a CUDA device are tests/gpu's.
#include "skip.hpp"
#include "test_support.hpp"

#include "weft/backend/cuda.hpp"
#include "weft/host/host.hpp"
#include "weft/runtime/values.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <unistd.h>

using namespace weft;
using weft::test::message_of;
namespace fs = std::filesystem;

namespace {

const Type f32 = Type::scalar(Scalar::Float32);
const Type u64 = Type::scalar(Scalar::UInt64);
const Type i8 = Type::scalar(Scalar::Int8);

struct TempCache {
    fs::path path = fs::temp_directory_path() / ("weft_device_api_" + std::to_string(::getpid()));
    TempCache() { fs::remove_all(path); }
    ~TempCache() { fs::remove_all(path); }
};

HostOptions options_for(const TempCache &cache) {
    HostOptions o = weft::test::test_host_options();
    o.cache_dir = cache.path;
    o.quiet = true;
    return o;
}

const char *store_source = R"(import warp as wp

@wp.kernel
def store(out: wp.array(dtype=wp.uint64), value: wp.uint64, small: wp.int8):
    i = wp.tid()
    out[i] = value + wp.uint64(small)
)";

} // namespace

TEST_CASE("Device names parse and print") {
    CHECK(Device::parse("cpu") == Device::cpu());
    CHECK(Device::parse("cuda") == Device::cuda(0));
    CHECK(Device::parse("cuda:3") == Device::cuda(3));
    CHECK(Device::cuda(3).name() == "cuda:3");
    for (const char *bad : {"gpu", "cuda:", "cuda:-1", "cuda:1x", "cuda:123456789"})
        CHECK_THAT(message_of<UserError>([&] { Device::parse(bad); }),
                   Catch::Contains("unknown device '" + std::string(bad) + "' (expected cpu, cuda or cuda:N)"));
}

TEST_CASE("host element types are checked against the dtype, not only their size") {
    CHECK_THAT(message_of<UserError>([] { Array::from_vector(f32, std::vector<std::int32_t>{1, 2}); }),
               Catch::Contains("Array::from_vector: the host elements are int32, the dtype is float32"));
    const Array a = Array::from_vector(f32, std::vector<float>{1.5f, 2.5f});
    CHECK(a.device() == Device::cpu());
    CHECK(a.to_vector<float>() == std::vector<float>{1.5f, 2.5f});
    CHECK_THAT(message_of<UserError>([&] { a.to_vector<std::uint32_t>(); }),
               Catch::Contains("Array::to_vector: the host elements are uint32, the dtype is float32"));
    // float16's raw bits travel as uint16 (0x3C00 is 1.0).
    const Array half = Array::from_vector(Type::scalar(Scalar::Float16), std::vector<std::uint16_t>{0x3C00});
    CHECK(half.to_vector<std::uint16_t>() == std::vector<std::uint16_t>{0x3C00});
    // So do bfloat16's (0x3F80 is 1.0).
    const Array brain = Array::from_vector(Type::scalar(Scalar::BFloat16), std::vector<std::uint16_t>{0x3F80});
    CHECK(brain.to_vector<std::uint16_t>() == std::vector<std::uint16_t>{0x3F80});
    // A type with no kernel scalar of its own is checked by size (structs, native types).
    struct Pair {
        float a, b;
    };
    CHECK_THAT(message_of<UserError>([] { Array::from_vector(f32, std::vector<Pair>{{1, 2}}); }),
               Catch::Contains("the host element type has 8 bytes, dtype float32 has 4"));
    // to(cpu): a contiguous copy on the same device.
    const Array copied = a.to(Device::cpu());
    CHECK(copied.data() != a.data());
    CHECK(copied.to_vector<float>() == a.to_vector<float>());
}

TEST_CASE("integer arguments convert when their value fits, and anything lossy is a LaunchError naming the parameter") {
    TempCache cache;
    Host host(options_for(cache));
    const Kernel k = host.load_module_source("store", store_source).kernel("store");
    Array out = Array::zeros(u64, {2});
    k.launch({2}, {out, 1234, std::int64_t{-3}}); // int32 -> uint64, int64 -> int8
    CHECK(out.to_vector<std::uint64_t>() == std::vector<std::uint64_t>{1231, 1231});
    k.launch({1}, {out, std::uint64_t{1} << 63, KernelArg::of(i8, std::int8_t{0})});
    CHECK(out.to_vector<std::uint64_t>()[0] == std::uint64_t{1} << 63);

    CHECK_THAT(message_of<LaunchError>([&] { k.launch({1}, {out, -1, 0}); }),
               Catch::Contains("kernel 'store', parameter 'value': expected uint64, got int32 whose value does not fit"));
    CHECK_THAT(message_of<LaunchError>([&] { k.launch({1}, {out, 1, 300}); }),
               Catch::Contains("parameter 'small': expected int8, got int32 whose value does not fit"));
    CHECK_THAT(message_of<LaunchError>([&] { k.launch({1}, {out, 1.0f, 0}); }),
               Catch::Contains("parameter 'value': expected uint64, got float32 (values convert only between integer "
                               "types, when they fit)"));
    CHECK_THAT(message_of<LaunchError>([&] { k.launch({1}, {out, 1}); }),
               Catch::Contains("kernel 'store' takes 3 arguments (out, value, small), got 2"));
}

TEST_CASE("one launch call with options: a stream orders it, and expect_* failures surface at synchronize") {
    TempCache cache;
    Host host(options_for(cache));
    const CompiledModule m = host.load_module_source("checks", R"(import warp as wp

@wp.kernel
def check(a: wp.array(dtype=float), want: float):
    i = wp.tid()
    a[i] = a[i] + 1.0
    wp.expect_eq(a[i], want)
)");
    CHECK(m.device() == Device::cpu());
    const Kernel k = m.kernel("check");
    CHECK(k.device() == Device::cpu());
    Array a = Array::from_vector(f32, std::vector<float>{1, 1});
    Stream stream(Device::cpu());
    k.launch({2}, {a, 2.0f}, LaunchOptions{&stream});
    k.launch({2}, {a, 9.0f}, LaunchOptions{&stream});
    CHECK_THAT(message_of<LaunchError>([&] { stream.synchronize(); }),
               Catch::Contains("2 expect_* checks failed"));
    CHECK(a.to_vector<float>() == std::vector<float>{3, 3});
    CHECK_THAT(message_of<LaunchError>([&] { k.launch({2}, {a, 0.0f}); }), Catch::Contains("expect_* check"));
}

TEST_CASE("without a CUDA driver, CUDA arrays, streams and modules fail clearly and the host stays usable") {
    if (backend::CudaDriver::instance().available()) {
        test::skip("a CUDA driver is installed; tests/gpu covers CUDA");
    }
    TempCache cache;
    Host host(options_for(cache));
    CHECK_THAT(message_of<Error>([] { Array::zeros(f32, {4}, Device::cuda(0)); }),
               Catch::Contains("CUDA driver not available"));
    CHECK_THAT(message_of<Error>([] { Stream stream(Device::cuda(0)); }), Catch::Contains("CUDA driver not available"));
    ModuleLoadOptions on_gpu;
    on_gpu.device = Device::cuda(0);
    CHECK_THAT(message_of<Error>([&] { host.load_module_source("store", store_source, on_gpu); }),
               Catch::Contains("CUDA driver not available"));
    Array out = Array::zeros(u64, {1});
    host.load_module_source("store", store_source).kernel("store").launch({1}, {out, 5, 1});
    CHECK(out.to_vector<std::uint64_t>() == std::vector<std::uint64_t>{6});
}

TEST_CASE("debug mode: an out-of-bounds access is a LaunchError naming kernel, file:line, index and shape") {
    TempCache cache;
    Host host(options_for(cache));
    const char *source = R"(import warp as wp

@wp.kernel
def shift(a: wp.array(dtype=float), b: wp.array2d(dtype=float)):
    i = wp.tid()
    a[i + 1] = a[i] + b[0, i]
)";
    ModuleLoadOptions debug;
    debug.debug = true;
    const CompiledModule checked = host.load_module_source("shift", source, debug);
    ModuleLoadOptions release;
    const CompiledModule fast = host.load_module_source("shift_release", source, release);
    CHECK(checked.hash() != host.load_module_source("shift_release", source).hash());

    Array a = Array::from_vector(f32, std::vector<float>{1, 2, 3, 4});
    Array b = Array::zeros(f32, {1, 4});
    // In bounds: the same result as release code.
    checked.kernel("shift").launch({3}, {a, b});
    CHECK(a.to_vector<float>() == std::vector<float>{1, 1, 1, 1});
    // A launch one wider than the arrays: the write a[4] is caught, memory after the array untouched.
    const std::string message = message_of<LaunchError>([&] { checked.kernel("shift").launch({4}, {a, b}); });
    CHECK_THAT(message, Catch::Contains("kernel 'shift' (module 'shift'): array 'a' index [4] is out of bounds for shape "
                                        "[4] in kernel 'shift' at shift.py:6, thread 3 (1 check failed)"));
    CHECK(a.to_vector<float>() == std::vector<float>{1, 1, 1, 1});
    // The module stays usable, and the next failure is reported afresh.
    checked.kernel("shift").launch({1}, {a, b});
    CHECK_THAT(message_of<LaunchError>([&] { checked.kernel("shift").launch({5}, {a, Array::zeros(f32, {1, 5})}); }),
               Catch::Contains("array 'a' index [4] is out of bounds for shape [4]"));
    (void)fast;
}

TEST_CASE("debug mode: a tile element outside its tile fails the launch, naming tile, kernel, line and thread") {
    const Type i32 = Type::scalar(Scalar::Int32);
    TempCache cache;
    Host host(options_for(cache));
    const char *kernel = R"(import warp as wp

@wp.kernel
def pick(a: wp.array(dtype=float), at: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=8)
    out[i] = t[at[i]]
)";
    ModuleLoadOptions debug;
    debug.debug = true;
    const Kernel checked = host.load_module_source("pick", kernel, debug).kernel("pick");
    REQUIRE(checked.tiled());
    std::vector<float> values{10, 11, 12, 13, 14, 15, 16, 17};
    Array a = Array::from_vector(f32, values);
    Array inside = Array::from_vector(i32, std::vector<std::int32_t>{7, 0});
    Array outside = Array::from_vector(i32, std::vector<std::int32_t>{3, 8});
    Array out = Array::zeros(f32, {2});
    checked.launch({2}, {a, inside, out});
    CHECK(out.to_vector<float>() == std::vector<float>{17, 10});
    const std::string message = message_of<LaunchError>([&] { checked.launch({2}, {a, outside, out}); });
    CHECK_THAT(message, Catch::Contains("tile 't' index [8] is out of bounds for shape [8] in kernel 'pick' at pick.py:7, thread 1"));
    LaunchOptions negative;
    negative.block_dim = -4;
    CHECK_THAT(message_of<LaunchError>([&] { checked.launch({2}, {a, inside, out}, negative); }),
               Catch::Contains("kernel 'pick': block size -4 is negative"));
}

TEST_CASE("debug mode: an integer division or remainder by zero fails the launch, naming kernel, line and thread") {
    const Type i32 = Type::scalar(Scalar::Int32);
    TempCache cache;
    Host host(options_for(cache));
    const char *source = R"(import warp as wp

@wp.kernel
def quotients(a: wp.array(dtype=int), b: wp.array(dtype=int), out: wp.array(dtype=int), v: wp.array(dtype=wp.vec3i)):
    i = wp.tid()
    out[i] = a[i] / b[i] + 100 * (a[i] // b[i])
    out[i] = out[i] + 10000 * (a[i] % b[i])
    v[i] = v[i] / b[i]
    f = float(a[i]) / float(b[i] + 1)
    out[i] = out[i] + int(f) * 0

@wp.kernel
def remainders(a: wp.array(dtype=int), b: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = a[i] % b[i]
)";
    ModuleLoadOptions debug;
    debug.debug = true;
    const Kernel checked = host.load_module_source("quotients", source, debug).kernel("quotients");
    const Kernel fast = host.load_module_source("quotients_release", source).kernel("quotients");
    Array a = Array::from_vector(i32, std::vector<std::int32_t>{7, -7, 9});
    Array ok = Array::from_vector(i32, std::vector<std::int32_t>{2, 2, 4});
    Array zero = Array::from_vector(i32, std::vector<std::int32_t>{2, 0, 4});
    Array out = Array::zeros(i32, {3});
    using V = values::vec3i;
    const auto vecs = [] { return Array::from_vector(std::vector<V>{V{{6, 8, 10}}, V{{6, 8, 10}}, V{{6, 8, 10}}}); };
    // Divisors without zeros: C's / and %, Python's //, as in release code.
    Array v1 = vecs();
    checked.launch({3}, {a, ok, out, v1});
    CHECK(out.to_vector<std::int32_t>() == std::vector<std::int32_t>{3 + 300 + 10000, -3 - 400 - 10000, 2 + 200 + 10000});
    // A zero divisor in thread 1: release code gives 0 for each quotient and remainder...
    Array v2 = vecs();
    fast.launch({3}, {a, zero, out, v2});
    CHECK(out.to_vector<std::int32_t>() == std::vector<std::int32_t>{3 + 300 + 10000, 0, 2 + 200 + 10000});
    CHECK(v2.to_vector<V>() == std::vector<V>{V{{3, 4, 5}}, V{{0, 0, 0}}, V{{1, 2, 2}}});
    // ...and debug code fails the launch at the first one, naming kernel, line and thread (4 checks: /, //, %, vec /).
    Array v3 = vecs();
    const std::string message = message_of<LaunchError>([&] { checked.launch({3}, {a, zero, out, v3}); });
    CHECK_THAT(message, Catch::Contains("integer division by zero in kernel 'quotients' at quotients.py:6, thread 1"));
    CHECK_THAT(message, Catch::Contains("(4 checks failed; the log gives the first 4)"));
    CHECK_THAT(message_of<LaunchError>([&] {
                   host.load_module_source("quotients", source, debug).kernel("remainders").launch({3}, {a, zero, out});
               }),
               Catch::Contains("integer remainder by zero in kernel 'remainders' at quotients.py:15, thread 1 (1 check "
                               "failed)"));
    // The module stays usable.
    Array v4 = vecs();
    checked.launch({3}, {a, ok, out, v4});
}

TEST_CASE("debug mode: atomics check their index too, and a failed one changes nothing outside the array") {
    const Type i32 = Type::scalar(Scalar::Int32);
    TempCache cache;
    Host host(options_for(cache));
    const char *source = R"(import warp as wp

@wp.kernel
def bins(keys: wp.array(dtype=int), counts: wp.array(dtype=int), sums: wp.array2d(dtype=float)):
    i = wp.tid()
    k = keys[i]
    wp.atomic_add(counts, k, 1)
    wp.atomic_max(sums, 0, k, 2.0)
)";
    ModuleLoadOptions debug;
    debug.debug = true;
    const Kernel k = host.load_module_source("bins", source, debug).kernel("bins");
    // Guards on both sides of each array: a write past the end would land in them.
    Array counts_and_guard = Array::zeros(i32, {6});
    Array counts = counts_and_guard.view({4}, {4}, 4);
    Array sums = Array::zeros(f32, {1, 4});
    Array keys = Array::from_vector(i32, std::vector<std::int32_t>{0, 1, 1, 3});
    k.launch({4}, {keys, counts, sums});
    CHECK(counts_and_guard.to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 1, 2, 0, 1, 0});
    CHECK(sums.to_vector<float>() == std::vector<float>{2, 2, 0, 2});
    Array bad = Array::from_vector(i32, std::vector<std::int32_t>{4, 2, -5, 1000}); // -1 would be the last
    const std::string message = message_of<LaunchError>([&] { k.launch({4}, {bad, counts, sums}); });
    CHECK_THAT(message, Catch::Contains("is out of bounds for shape [") && Catch::Contains("in kernel 'bins' at bins.py:"));
    CHECK_THAT(message, Catch::Contains("(6 checks failed; the log gives the first 6)"));
    CHECK(counts_and_guard.to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 1, 2, 1, 1, 0});
}

TEST_CASE("debug mode compiles for CUDA too (NVRTC, no GPU needed)") {
    if (!backend::nvrtc_available()) {
        test::skip("weft was built without NVRTC");
    }
    TempCache cache;
    Host host(options_for(cache));
    const fs::path file = cache.path / "shift_cuda.py";
    fs::create_directories(cache.path);
    std::ofstream(file) << "import warp as wp\n\n@wp.kernel\ndef shift(a: wp.array(dtype=float)):\n"
                           "    i = wp.tid()\n    a[i + 1] = a[i]\n    wp.atomic_add(a, i, 1.0)\n";
    ModuleLoadOptions debug;
    debug.debug = true;
    const std::vector<fs::path> paths = host.compile_aot(file, {Target::cuda_ptx(75), Target::cuda_cubin(90)}, debug);
    REQUIRE(paths.size() == 2);
    std::ifstream ptx(paths[0]);
    const std::string text((std::istreambuf_iterator<char>(ptx)), std::istreambuf_iterator<char>());
    // The checks are debug code alone: the bounds counter is declared in every
    // module, and only debug code refers to it beside the declaration.
    const auto mentions = [](const std::string &ptx_text, const std::string &word) {
        std::size_t n = 0;
        for (std::size_t at = ptx_text.find(word); at != std::string::npos; at = ptx_text.find(word, at + 1)) ++n;
        return n;
    };
    CHECK(mentions(text, "weft_bounds_failures") >= 2);
    std::ifstream release_ptx(host.compile_aot(file, {Target::cuda_ptx(75)}).at(0));
    const std::string release((std::istreambuf_iterator<char>(release_ptx)), std::istreambuf_iterator<char>());
    CHECK(mentions(release, "weft_bounds_failures") == 1);
    // What an AOT load checks the artifact's kernels against, in device memory the driver can read.
    CHECK(text.find(".global .align 1 .b8 weft_kernel_signatures[65]") != std::string::npos);
    CHECK(host.compile_aot(file, {Target::cuda_ptx(75)}).at(0) != paths[0]); // release: another artifact
}

TEST_CASE("debug mode: bounds failures reach the log sink, name array and thread, and are capped") {
    TempCache cache;
    std::vector<std::string> errors;
    HostOptions o = options_for(cache);
    o.log_sink = [&](LogLevel level, std::string_view category, std::string_view message) {
        if (level == LogLevel::Error && category == "kernel") errors.emplace_back(message);
    };
    Host host(o);
    ModuleLoadOptions debug;
    debug.debug = true;
    const Kernel k = host.load_module_source("overrun", R"(import warp as wp

@wp.struct
class Box:
    values: wp.array(dtype=float)

@wp.kernel
def overrun(box: Box, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = box.values[i + 4]
)", debug).kernel("overrun");
    StructValue box = k.make_struct("box");
    box.set("values", Array::zeros(f32, {4}));
    const Array out = Array::zeros(f32, {100});
    const std::string message = message_of<LaunchError>([&] { k.launch({100}, {box, out}); });
    // 100 failures: 8 lines and a count of the rest, not 100 lines.
    REQUIRE(errors.size() == 9);
    for (std::size_t i = 0; i < 8; ++i) {
        CHECK_THAT(errors[i], Catch::StartsWith("array 'box.values' index [") &&
                                  Catch::Contains("] is out of bounds for shape [4] in kernel 'overrun' at overrun.py:10, thread "));
    }
    CHECK(errors[8] == "... and 92 more failures in this launch (the first 8 are above)");
    CHECK_THAT(message, Catch::Contains("(100 checks failed; the log gives the first 8)"));
    // Thread i reads index i + 4: each line's thread matches its index.
    for (std::size_t i = 0; i < 8; ++i) {
        const std::string &e = errors[i];
        const auto index = std::stoi(e.substr(e.find('[') + 1));
        const auto thread = std::stoi(e.substr(e.rfind("thread ") + 7));
        CHECK(index == thread + 4);
    }
    errors.clear();
    k.launch({0}, {box, out}); // nothing runs, nothing is reported
    CHECK(errors.empty());
}
