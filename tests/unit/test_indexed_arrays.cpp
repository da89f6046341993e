// Indexed arrays (Warp's wp.indexedarray) through the public API with
// concrete values: a base array read and written through per-dimension int32
// index arrays, on the CPU in release and debug builds, their gradients, and
// the launch checks of the index arrays. The forward values are what
// warp-lang 1.19 computes for the same kernels (the corpus file
// indexed_arrays.py is compared with it); the gradients are weft's own: Warp
// 1.19 drops gradients through indexed arrays (its adj_address for them is
// empty), weft sends them to the base's gradient through the same indices.
#include "skip.hpp"
#include "test_support.hpp"

#include "weft/backend/cuda.hpp"
#include "weft/modules/compiled_module.hpp"
#include "weft/host/host.hpp"
#include "weft/host/tape.hpp"
#include "weft/runtime/array.hpp"
#include "weft/runtime/launch.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <vector>

using namespace weft;
using weft::test::message_of;
using weft::test::TempDir;

namespace {

const Type f32 = Type::scalar(Scalar::Float32);
const Type i32 = Type::scalar(Scalar::Int32);

Array floats(std::vector<std::int64_t> shape, const std::vector<float> &values, bool grad = false) {
    return Array::from_host(f32, std::move(shape), values.data(), values.size() * sizeof(float), Device::cpu(), grad);
}

Array ints(const std::vector<std::int32_t> &values) { return Array::from_vector(i32, values); }

const char *source = R"(import warp as wp


@wp.func
def weighted(x: wp.indexedarray(dtype=float), i: int, w: float) -> float:
    return x[i] * w + float(len(x))


@wp.kernel
def scale_selected(x: wp.indexedarray(dtype=float), s: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = weighted(x, i, s) + x[i - 3] * 100.0
    x[i] = x[i] * s


@wp.kernel
def bump(x: wp.indexedarray(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(total, 0, x[i])
    x[i] += 1.0
    wp.atomic_max(x, i, 4.5)


@wp.kernel
def grid(a: wp.indexedarray2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = a[i, j] + float(a.shape[0]) * 100.0 + float(a.shape[1]) * 10.0


@wp.kernel
def squares(x: wp.indexedarray(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def gather_sum(x: wp.indexedarray(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(total, 0, x[i] * 3.0)


@wp.kernel
def row_views(a: wp.indexedarray2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    r = a[i]
    out[i] = r[0] + r[1] * 10.0 + float(r.shape[0]) * 100.0
    r[2] = r[0] * 2.0
    wp.atomic_add(a[i], 1, 0.5)


@wp.kernel
def row_products(a: wp.indexedarray2d(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    r = a[i]
    y[i] = r[0] * r[1]


@wp.kernel
def shape_of(x: wp.array(dtype=float), out: wp.array(dtype=int)):
    out[0] = x.shape[0]
)";

} // namespace

TEST_CASE("indexed arrays: a type of their own, with Warp's indexedarray_t layout") {
    const Type x = Type::indexed_array(f32, 2), a = Type::array(f32, 2);
    CHECK(x.kind() == Type::Kind::Array);
    CHECK(x.is_indexed_array());
    CHECK_FALSE(a.is_indexed_array());
    CHECK(x != a);
    CHECK(x == Type::indexed_array(f32, 2));
    CHECK(x != Type::indexed_array(f32, 1));
    CHECK(x.code() != a.code());
    CHECK(x.name() == "indexedarray(dtype=float32, ndim=2)");
    CHECK(x.size() == 112);
    CHECK(x.alignment() == 8);
    const IndexedArray arg{Array::zeros(f32, {4, 3}), {ints({1, 2}), std::nullopt}};
    CHECK(arg.shape() == std::vector<std::int64_t>{2, 3});
    CHECK(KernelArg(arg).type() == x);
    CHECK(KernelArg(arg).is_indexed_array());
    CHECK_FALSE(KernelArg(arg).is_array());
}

TEST_CASE("indexed arrays: reads, writes, atomics, len and shape go through the index arrays") {
    TempDir cache("indexed");
    Host host(weft::test::cached_host_options(cache.path));
    for (const bool debug : {false, true}) {
        INFO((debug ? "debug" : "release") << " mode");
        ModuleLoadOptions options;
        options.debug = debug;
        options.name = debug ? "indexed_debug" : "indexed";
        const CompiledModule m = host.load_module_source(options.name, source, options);

        Array base = floats({5}, {1, 2, 3, 4, 5});
        Array out = Array::zeros(f32, {3});
        // Positions 0, 1, 2 read elements 4, 0, 2; len(x) is 3; x[i - 3] counts from the end: x[i].
        m.kernel("scale_selected").launch({3}, {IndexedArray{base, {ints({4, 0, 2})}}, 2.0f, out});
        CHECK(out.to_vector<float>() == std::vector<float>{513, 105, 309});
        CHECK(base.to_vector<float>() == std::vector<float>{2, 2, 6, 4, 10});

        Array total = Array::zeros(f32, {1});
        m.kernel("bump").launch({2}, {IndexedArray{base, {ints({1, 3})}}, total});
        CHECK(total.to_vector<float>() == std::vector<float>{6});
        CHECK(base.to_vector<float>() == std::vector<float>{2, 4.5f, 6, 5, 10});

        // Rows indexed (2, 0), columns not: the indexed shape is 2 x 3.
        Array b = floats({3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
        Array g = Array::zeros(f32, {2, 3});
        m.kernel("grid").launch({2, 3}, {IndexedArray{b, {ints({2, 0}), std::nullopt}}, g});
        CHECK(g.to_vector<float>() == std::vector<float>{236, 237, 238, 230, 231, 232});
        // Columns indexed too.
        m.kernel("grid").launch({2, 2}, {IndexedArray{b, {ints({2, 0}), ints({1, 1})}}, g});
        CHECK(g.to_vector<float>() == std::vector<float>{227, 227, 238, 221, 221, 232});
    }
}

TEST_CASE("indexed arrays: a[i] on a 2-D one is an indexed view of row i, as in Warp") {
    TempDir cache("indexed");
    Host host(weft::test::cached_host_options(cache.path));
    for (const bool debug : {false, true}) {
        INFO((debug ? "debug" : "release") << " mode");
        ModuleLoadOptions options;
        options.debug = debug;
        const CompiledModule m = host.load_module_source(debug ? "indexed_views_debug" : "indexed_views", source, options);
        // Rows indexed (2, 0): view 0 is base row 2, view 1 base row 0; each keeps 3 columns.
        Array b = floats({3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
        Array out = Array::zeros(f32, {2});
        m.kernel("row_views").launch({2}, {IndexedArray{b, {ints({2, 0}), std::nullopt}}, out});
        CHECK(out.to_vector<float>() == std::vector<float>{376, 310});
        CHECK(b.to_vector<float>() == std::vector<float>{0, 1.5f, 0, 3, 4, 5, 6, 7.5f, 12});
        // Columns indexed too: the view keeps the column index array (1, 1, 0).
        Array c = floats({3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
        m.kernel("row_views").launch({1}, {IndexedArray{c, {ints({1}), ints({1, 1, 0})}}, out});
        CHECK(out.to_vector<float>()[0] == 4 + 40 + 300);
        CHECK(c.to_vector<float>() == std::vector<float>{0, 1, 2, 8, 4.5f, 5, 6, 7, 8});
    }
}

TEST_CASE("indexed arrays: gradients through a view of one reach the base's rows") {
    TempDir cache("indexed");
    Host host(weft::test::cached_host_options(cache.path));
    const CompiledModule m = host.load_module_source("indexed_view_grads", source);
    Array base = floats({3, 2}, {1, 2, 3, 4, 5, 6}, true);
    Array y = Array::zeros(f32, {2}, Device::cpu(), true);
    const IndexedArray x{base, {ints({2, 0}), std::nullopt}};
    Tape tape;
    {
        Tape::Scope scope(tape);
        m.kernel("row_products").launch({2}, {x, y});
    }
    CHECK(y.to_vector<float>() == std::vector<float>{30, 2});
    tape.backward({{y, floats({2}, {1, 1})}});
    // d(r0 * r1): (r1, r0) on each selected row; row 1 is not selected.
    CHECK(base.grad().to_vector<float>() == std::vector<float>{2, 1, 0, 0, 6, 5});
}

TEST_CASE("launches pack array shapes as int32: the largest fits exactly, a larger one is refused") {
    TempDir cache("indexed");
    Host host(weft::test::cached_host_options(cache.path));
    const CompiledModule m = host.load_module_source("int32_shapes", source);
    // A zero-stride view repeats one element: no allocation of its size.
    const std::int64_t max = std::numeric_limits<std::int32_t>::max();
    const Array one = floats({1}, {3});
    Array out = Array::zeros(i32, {1});
    m.kernel("shape_of").launch({1}, {one.view({max}, {0}), out});
    CHECK(out.to_vector<std::int32_t>() == std::vector<std::int32_t>{2147483647});
    CHECK_THAT(message_of<UserError>([&] { (void)one.view({max + 1}, {0}); }),
               Catch::Contains("is more than 2147483647 (array shapes are int32)"));
    // The raw layout writer refuses what would narrow.
    std::byte view_bytes[ArrayViewLayout::size];
    CHECK_THAT(message_of<UserError>([&] { write_array_view(view_bytes, 0, {4, max + 1}, {8, 4}); }),
               Catch::Contains("write_array_view: dimension 1 of shape [4, 2147483648] does not fit int32"));
    CHECK_THAT(message_of<UserError>([&] { write_array_view(view_bytes, 0, {4, 2}, {8}); }),
               Catch::Contains("an array view has 1 to 4 dimensions, one stride each"));
    write_array_view(view_bytes, 0, {4, max}, {8, 0});
    std::int32_t shape[2];
    std::memcpy(shape, view_bytes + ArrayViewLayout::shape_offset, sizeof shape);
    CHECK(shape[0] == 4);
    CHECK(shape[1] == 2147483647);
}

TEST_CASE("indexed arrays: gradients reach the base array's gradient through the indices") {
    TempDir cache("indexed");
    Host host(weft::test::cached_host_options(cache.path));
    const CompiledModule m = host.load_module_source("indexed_grads", source);
    Array base = floats({5}, {1, 2, 3, 4, 5}, true);
    Array y = Array::zeros(f32, {3}, Device::cpu(), true);
    Array total = Array::zeros(f32, {1}, Device::cpu(), true);
    const IndexedArray x{base, {ints({4, 0, 4})}};
    Tape tape;
    {
        Tape::Scope scope(tape);
        m.kernel("squares").launch({3}, {x, y});
        m.kernel("gather_sum").launch({3}, {x, total});
    }
    CHECK(y.to_vector<float>() == std::vector<float>{25, 1, 25});
    CHECK(total.to_vector<float>() == std::vector<float>{33});
    tape.backward({{y, floats({3}, {1, 1, 1})}, {total, floats({1}, {1})}});
    // d/dbase of sum x^2 + 3 sum x: element 4 is selected twice (2*5 + 3 each), element 0 once.
    CHECK(base.grad().to_vector<float>() == std::vector<float>{5, 0, 0, 0, 26});

    // launch_adjoint with an explicit adjoint: the gradient array read through the same indices.
    Array grad = Array::zeros(f32, {5});
    m.kernel("squares").launch_adjoint({3}, {x, y}, {x.over(grad), floats({3}, {1, 2, 3})});
    CHECK(grad.to_vector<float>() == std::vector<float>{4, 0, 0, 0, 40});
}

TEST_CASE("indexed arrays: launches check the index arrays and say what to pass") {
    TempDir cache("indexed");
    Host host(weft::test::cached_host_options(cache.path));
    const CompiledModule m = host.load_module_source("indexed_checks", source);
    const Kernel k = m.kernel("squares");
    Array base = floats({5}, {1, 2, 3, 4, 5});
    Array y = Array::zeros(f32, {3});

    const Array wide = Array::from_vector(Type::scalar(Scalar::Int64), std::vector<std::int64_t>{0, 1, 2});
    CHECK_THAT(message_of<LaunchError>([&] { k.launch({3}, {IndexedArray{base, {wide}}, y}); }),
               Catch::Contains("kernel 'squares', parameter 'x': the index array of dimension 0 has dtype int64; "
                               "index arrays are int32"));
    CHECK_THAT(message_of<LaunchError>([&] { k.launch({3}, {IndexedArray{base, {ints({0}), ints({0})}}, y}); }),
               Catch::Contains("has 2 index arrays for a base of 1 dimension(s)"));
    const Array two_d = Array::from_host(i32, {1, 3}, std::vector<std::int32_t>{0, 1, 2}.data(), 12);
    CHECK_THAT(message_of<LaunchError>([&] { k.launch({3}, {IndexedArray{base, {two_d}}, y}); }),
               Catch::Contains("has 2 dimensions; index arrays are 1-D"));
    CHECK_THAT(message_of<UserError>([&] { k.launch({3}, {base, y}); }),
               Catch::Contains("expected indexedarray(dtype=float32), got array(dtype=float32) (pass "
                               "weft::IndexedArray{array, {index arrays}})"));
    CHECK_THAT(message_of<UserError>([&] { k.launch({3}, {IndexedArray{base, {}}, IndexedArray{y, {}}}); }),
               Catch::Contains("parameter 'y': expected array(dtype=float32), got indexedarray(dtype=float32)"));
    // No index arrays: the base as it is.
    k.launch({5}, {IndexedArray{base, {}}, Array::zeros(f32, {5})});
}

TEST_CASE("indexed arrays: debug builds check each position and each index array value") {
    TempDir cache("indexed");
    Host host(weft::test::cached_host_options(cache.path));
    ModuleLoadOptions debug;
    debug.debug = true;
    const CompiledModule m = host.load_module_source("indexed_bounds", source, debug);
    Array base = floats({5}, {1, 2, 3, 4, 5});
    // Three threads, two positions: position 2 is outside the indexed shape [2].
    CHECK_THAT(message_of<LaunchError>([&] {
                   m.kernel("squares").launch({3}, {IndexedArray{base, {ints({0, 1})}}, Array::zeros(f32, {3})});
               }),
               Catch::Contains("array 'x' index [2] is out of bounds for shape [2]"));
    // An index array value outside the base: the base's position and shape.
    CHECK_THAT(message_of<LaunchError>([&] {
                   m.kernel("squares").launch({2}, {IndexedArray{base, {ints({0, 7})}}, Array::zeros(f32, {2})});
               }),
               Catch::Contains("array 'x' index [7] is out of bounds for shape [5]"));
    CHECK(base.to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5});
}

TEST_CASE("indexed arrays: debug builds compile with NVRTC") {
    // Release builds, forward and backward, are kernels.cuda.indexed_arrays.
    if (!backend::nvrtc_available()) test::skip("weft was built without a CUDA toolkit (NVRTC)");
    TempDir dir("indexed_cuda");
    const std::filesystem::path file = dir.path / "indexed_cuda.py";
    // One kernel: debug builds of indexed accesses take NVRTC seconds each.
    std::ofstream(file, std::ios::binary) << R"(import warp as wp


@wp.kernel
def bump(x: wp.indexedarray2d(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i, 0] * 2.0
    wp.atomic_add(x, i, 1, y[i])
)";
    Host host(weft::test::cached_host_options(dir.path / "cache"));
    ModuleLoadOptions options;
    options.debug = true;
    CHECK(host.compile_aot(file, {Target::cuda_ptx(90)}, options).size() == 1);
}
