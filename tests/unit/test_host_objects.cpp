// Host objects (weft/host/object.hpp) through the bundled hash_grid plugin:
// construction from checked arguments, methods, ids that kernels query,
// lifetime across launches and hosts, and bad input. The expected values are
// what warp-lang 1.19 computes on the CPU for the same kernels and points
// (tests/geometry/warp_side_hash_grid.py prints them; CTest runs it as
// warp.hash_grid where warp-lang is installed).
#include "test_support.hpp"

#include "geometry_inputs.hpp"
#include "weft/host/host.hpp"
#include "weft/host/tape.hpp"
#include "weft/runtime/stream.hpp"
#include "weft/runtime/values.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <numeric>
#include <optional>

using namespace weft;
using weft::test::message_of;
#include "weft/support/error.hpp"
namespace fs = std::filesystem;

namespace {

using weft::test::TempDir;

const fs::path kernels = fs::path(WEFT_SOURCE_DIR) / "tests/geometry/hash_grid_kernels.py";
const Type f32 = Type::scalar(Scalar::Float32);
const Type i32 = Type::scalar(Scalar::Int32);

/// The points warp_side_hash_grid.py builds.
std::vector<values::vec3f> golden_points(int n, double side) {
    std::vector<values::vec3f> out(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        out[static_cast<std::size_t>(i)] = values::vec3f{{static_cast<float>(std::fmod(i * 0.6180339887498949, 1.0) * side),
                                                          static_cast<float>(std::fmod(i * 0.7548776662466927, 1.0) * side),
                                                          static_cast<float>(std::fmod(i * 0.5698402909980532, 1.0) * side)}};
    return out;
}

struct Fixture {
    TempDir cache{"objects"};
    std::vector<std::string> log;
    std::unique_ptr<Host> host;
    Fixture() {
        HostOptions o = weft::test::cached_host_options(cache.path);
        o.log_sink = [this](LogLevel level, std::string_view, std::string_view message) {
            if (level >= LogLevel::Warning) log.emplace_back(message);
        };
        host = std::make_unique<Host>(std::move(o));
        host->load(fs::path(WEFT_BUNDLED_PLUGIN_DIR) / "hash_grid");
    }
    Object grid(int dims = 32) {
        return host->create("hash_grid", {{"dim_x", std::int64_t{dims}}, {"dim_y", std::int64_t{dims}}, {"dim_z", std::int64_t{dims}}});
    }
};

long resident_kib() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * 4;
}

} // namespace

TEST_CASE("a hash grid built by the plugin answers Warp's neighbour queries with warp-lang's values") {
    Fixture f;
    const int n = 2000;
    const float radius = 0.8f;
    Array points = Array::from_vector(golden_points(n, 10.0));
    Object grid = f.grid();
    CHECK(grid.type() == "hash_grid");
    CHECK(grid.plugin() == "hash_grid");
    CHECK(grid.id() != 0);
    const std::uint64_t id_before = grid.id();
    grid.call("build", {{"points", points}, {"radius", double{radius}}});
    CHECK(grid.id() == id_before); // a rebuild keeps the id kernels hold
    CHECK(grid.device_bytes() >= (2 * 32 * 32 * 32 + n) * sizeof(int));

    const CompiledModule m = f.host->load_module(kernels);
    Array counts = Array::zeros(i32, {n});
    Array sums = Array::zeros(f32, {n});
    m.kernel("neighbor_sums").launch({n}, {grid, points, radius, counts, sums});
    const std::vector<int> c = counts.to_vector<int>();
    const std::vector<float> s = sums.to_vector<float>();
    CHECK(std::accumulate(c.begin(), c.end(), 0) == 8142);
    const int at[] = {0, 1, 17, 999, 1999};
    const int want_counts[] = {1, 5, 5, 5, 5};
    const double want_sums[] = {0.64000004529953, 0.9373801946640015, 0.9373800754547119, 0.7498836517333984,
                                0.9373799562454224};
    for (int k = 0; k < 5; ++k) {
        INFO("point " << at[k]);
        CHECK(c[static_cast<std::size_t>(at[k])] == want_counts[k]);
        CHECK(s[static_cast<std::size_t>(at[k])] == Approx(want_sums[k]).epsilon(1e-6));
    }
    double total = 0;
    for (float v : s) total += v;
    CHECK(total == Approx(1674.6385632157326).epsilon(1e-6));

    // Brute force agrees on every point, not just the sampled ones.
    const std::vector<values::vec3f> p = golden_points(n, 10.0);
    for (int i = 0; i < n; i += 97) {
        int brute = 0;
        for (int j = 0; j < n; ++j) {
            const float dx = p[static_cast<std::size_t>(i)].c[0] - p[static_cast<std::size_t>(j)].c[0];
            const float dy = p[static_cast<std::size_t>(i)].c[1] - p[static_cast<std::size_t>(j)].c[1];
            const float dz = p[static_cast<std::size_t>(i)].c[2] - p[static_cast<std::size_t>(j)].c[2];
            if (std::sqrt(dx * dx + dy * dy + dz * dz) <= radius) ++brute;
        }
        CHECK(c[static_cast<std::size_t>(i)] == brute);
    }

    Array counts2 = Array::zeros(i32, {n});
    m.kernel("neighbor_counts_while").launch({n}, {grid, points, radius, counts2});
    CHECK(counts2.to_vector<int>() == c);

    // The unfiltered candidates: Warp's cell walk, order included.
    Array first = Array::zeros(i32, {n});
    Array total_candidates = Array::zeros(i32, {n});
    m.kernel("candidates").launch({n}, {grid, points, radius, first, total_candidates});
    const std::vector<int> fi = first.to_vector<int>();
    const std::vector<int> t = total_candidates.to_vector<int>();
    CHECK(std::accumulate(t.begin(), t.end(), 0) == 44422);
    const int want_first[] = {0, 1017, 1698, 669, 1232};
    for (int k = 0; k < 5; ++k) CHECK(fi[static_cast<std::size_t>(at[k])] == want_first[k]);
}

TEST_CASE("an unbuilt hash grid yields no neighbours, and hash_grid_point_id outside the points is -1") {
    Fixture f;
    Object grid = f.grid(4);
    const CompiledModule m = f.host->load_module(kernels);
    Array points = Array::from_vector(golden_points(8, 1.0));
    Array first = Array::zeros(i32, {8});
    Array total = Array::zeros(i32, {8});
    m.kernel("candidates").launch({8}, {grid, points, 0.5f, first, total});
    CHECK(total.to_vector<int>() == std::vector<int>(8, 0));
    CHECK(first.to_vector<int>() == std::vector<int>(8, -1));
    // An empty build is a build: still nothing to find.
    grid.call("build", {{"points", Array::zeros(Type::vector(Scalar::Float32, 3), {0})}, {"radius", 1.0}});
    m.kernel("candidates").launch({8}, {grid, points, 0.5f, first, total});
    CHECK(total.to_vector<int>() == std::vector<int>(8, 0));
}

TEST_CASE("bad object arguments are refused before plugin code runs, naming plugin, object type and argument") {
    Fixture f;
    CHECK_THAT(message_of<UserError>([&] { f.host->create("mesh", {}); }),
               Catch::Contains("no object type 'mesh' (registered: hash_grid)"));
    CHECK_THAT(message_of<UserError>([&] { f.host->create("hash_grid", {{"dim_x", std::int64_t{4}}, {"dim_y", std::int64_t{4}}}); }),
               Catch::Contains("plugin 'hash_grid', object type 'hash_grid', constructor: missing argument 'dim_z' (int32)"));
    CHECK_THAT(message_of<UserError>([&] {
                   f.host->create("hash_grid", {{"dim_x", 4.5}, {"dim_y", std::int64_t{4}}, {"dim_z", std::int64_t{4}}});
               }),
               Catch::Contains("argument 'dim_x': expects an integer (int32), got a float"));
    CHECK_THAT(message_of<UserError>([&] {
                   f.host->create("hash_grid", {{"dim_x", std::int64_t{1} << 40}, {"dim_y", std::int64_t{4}}, {"dim_z", std::int64_t{4}}});
               }),
               Catch::Contains("argument 'dim_x': 1099511627776 does not fit int32"));
    CHECK_THAT(message_of<UserError>([&] {
                   f.host->create("hash_grid", {{"dim_x", std::int64_t{4}}, {"dim_y", std::int64_t{4}}, {"dim_z", std::int64_t{4}}, {"dims", std::int64_t{4}}});
               }),
               Catch::Contains("no parameter 'dims' (parameters: dim_x, dim_y, dim_z)"));
    // The plugin's own checks: reported with the same prefix, nothing left allocated.
    CHECK_THAT(message_of<UserError>([&] { f.grid(0); }),
               Catch::Contains("plugin 'hash_grid', object type 'hash_grid', constructor: dim_x: 0 cells; at least 1"));
    Object grid = f.grid(4);
    const std::uint64_t bytes = grid.device_bytes();
    const auto build = [&](ObjectArgs args) { return message_of<UserError>([&] { grid.call("build", args); }); };
    CHECK_THAT(build({{"points", Array::zeros(f32, {3})}, {"radius", 1.0}}),
               Catch::Contains("method 'build': argument 'points': expects array(dtype=vec3"));
    CHECK_THAT(build({{"points", Array::zeros(Type::vector(Scalar::Float32, 3), {3})}, {"radius", 0.0}}),
               Catch::Contains("method 'build': radius: 0.000000; a cell width must be positive and finite"));
    std::vector<values::vec3f> bad = golden_points(5, 1.0);
    bad[3].c[1] = std::nanf("");
    CHECK_THAT(build({{"points", Array::from_vector(bad)}, {"radius", 0.5}}),
               Catch::Contains("method 'build': points[3] is not finite"));
    CHECK_THAT(build({{"points", Array::zeros(Type::vector(Scalar::Float32, 3), {3})}}),
               Catch::Contains("method 'build': missing argument 'radius' (float32)"));
    CHECK_THAT(message_of<UserError>([&] { grid.call("refit"); }),
               Catch::Contains("object type 'hash_grid': no method 'refit' (methods: build)"));
    CHECK(grid.device_bytes() == bytes); // failed calls left the object as it was
    CHECK_THAT(message_of<UserError>([&] { Object().id(); }), Catch::Contains("an empty weft::Object"));
    CHECK(f.host->object_stats().live == 1);
}

TEST_CASE("a launch keeps the objects it received alive until it has run") {
    Fixture f;
    const int n = 2000;
    Array points = Array::from_vector(golden_points(n, 10.0));
    const CompiledModule m = f.host->load_module(kernels);
    Array counts = Array::zeros(i32, {n});
    Stream stream;
    std::promise<void> gate;
    std::shared_future<void> opened = gate.get_future().share();
    stream.enqueue([opened] { opened.wait(); }); // holds the stream until the object is dropped
    {
        Object grid = f.grid();
        grid.call("build", {{"points", points}, {"radius", 0.8}});
        m.kernel("neighbor_counts_while").launch({n}, {grid, points, 0.8f, counts}, &stream);
    }
    // The handle is gone, the launch has not run: the object lives on in it.
    CHECK(f.host->object_stats().live == 1);
    gate.set_value();
    stream.synchronize();
    const std::vector<int> c = counts.to_vector<int>();
    CHECK(std::accumulate(c.begin(), c.end(), 0) == 8142);
    CHECK(f.host->object_stats().live == 0);
    CHECK(f.host->object_stats().device_bytes == 0);
}

TEST_CASE("10,000 objects created, built and destroyed leave the host's object memory at zero and the process flat") {
    Fixture f;
    Array points = Array::from_vector(golden_points(256, 4.0));
    const auto cycle = [&](int count) {
        for (int i = 0; i < count; ++i) {
            Object g = f.grid(8);
            g.call("build", {{"points", points}, {"radius", 0.5}});
        }
    };
    cycle(1000); // warm the allocator
    const long before = resident_kib();
    cycle(10000);
    const long grown = resident_kib() - before;
    const ObjectStats s = f.host->object_stats();
    CHECK(s.live == 0);
    CHECK(s.device_bytes == 0);
    CHECK(s.host_bytes == 0);
    INFO("resident memory grew by " << grown << " KiB");
    // Each cycle holds ~6 KiB: 10,000 leaked would be ~60 MB. AddressSanitizer
    // keeps freed blocks in its quarantine (256 MB), so there the accounting
    // above and LeakSanitizer at exit are the check.
#if defined(__SANITIZE_ADDRESS__)
    (void)grown;
#else
    CHECK(grown < 4096);
#endif
}

TEST_CASE("an object outlives its host: it keeps its plugin's code mapped and still works") {
    auto f = std::make_unique<Fixture>();
    Object grid = f->grid(4);
    Array points = Array::from_vector(golden_points(16, 1.0));
    std::vector<std::string> *log = &f->log;
    f->host.reset();
    REQUIRE(log->size() == 1);
    CHECK_THAT(log->front(), Catch::Contains("host destroyed with 1 live objects") &&
                                 Catch::Contains("hash_grid #1 (plugin 'hash_grid', cpu)"));
    grid.call("build", {{"points", points}, {"radius", 0.25}}); // the plugin's code, after its host
    CHECK(grid.device_bytes() > 0);
    grid = Object(); // destroyed here, calling into the still-mapped library
    f.reset();
}

TEST_CASE("hash_grid is listed with its constructor and methods") {
    Fixture f;
    const ObjectTypeInfo *t = f.host->object_type("hash_grid");
    REQUIRE(t);
    CHECK(t->signature() == "hash_grid(dim_x: int32, dim_y: int32, dim_z: int32)");
    REQUIRE(t->methods.size() == 1);
    CHECK(t->methods[0].name == "build");
    CHECK(t->methods[0].params.size() == 2);
    CHECK(f.host->plugin("hash_grid")->object_types.size() == 1);
}

TEST_CASE("an inout builtin argument must be a local variable of exactly the parameter's type") {
    Fixture f;
    const std::string src = R"(import warp as wp
@wp.kernel
def k(grid: wp.uint64, out: wp.array(dtype=int)):
    q = wp.hash_grid_query(grid, wp.vec3(0.0), 1.0)
    while wp.hash_grid_query_next(q, out[0]):
        pass
)";
    const std::string msg = message_of<UserError>([&] { f.host->load_module_source("inout_bad", src); });
    CHECK_THAT(msg, Catch::Contains("inout_bad.py:5:") &&
                        Catch::Contains("argument 'index' of 'hash_grid_query_next' is written by the call: pass a "
                                        "local variable of type int32"));
    const std::string src2 = R"(import warp as wp
@wp.kernel
def k(points: wp.array(dtype=wp.vec3)):
    for i in points[0]:
        pass
)";
    CHECK_THAT(message_of<UserError>([&] { f.host->load_module_source("iter_bad", src2); }),
               Catch::Contains("for loops iterate over range(...) or a query value"));
}

// ---------------------------------------------------------------------------
// The mesh and bvh plugins. warp.geometry (tests/geometry/diff_geometry.py)
// compares every query with warp-lang; these pin the values it agreed on.

namespace {

struct GeometryFixture : Fixture {
    GeometryFixture() {
        host->load(fs::path(WEFT_BUNDLED_PLUGIN_DIR) / "mesh");
        host->load(fs::path(WEFT_BUNDLED_PLUGIN_DIR) / "bvh");
    }
    CompiledModule kernels() { return host->load_module(fs::path(WEFT_SOURCE_DIR) / "tests/geometry/mesh_kernels.py"); }
};

const Type vec3 = Type::vector(Scalar::Float32, 3);

} // namespace

TEST_CASE("mesh_query_ray and mesh_query_point_no_sign on a box give warp-lang's hits, distances and faces") {
    GeometryFixture f;
    const geometry_inputs::Mesh box = geometry_inputs::box_mesh();
    Array points = Array::from_vector(box.points);
    Object mesh = f.host->create("mesh", {{"points", points}, {"indices", Array::from_vector(i32, box.indices)}});
    const CompiledModule m = f.kernels();
    const int n = 1000;
    geometry_inputs::Points starts, dirs;
    geometry_inputs::rays(n, 3.0, starts, dirs);
    Array faces = Array::zeros(i32, {n}), ts = Array::zeros(f32, {n}), normals = Array::zeros(vec3, {n}),
          signs = Array::zeros(f32, {n});
    m.kernel("raycast").launch({n}, {mesh, Array::from_vector(starts), Array::from_vector(dirs), faces, ts, normals, signs});
    const auto t = ts.to_vector<float>();
    const auto fc = faces.to_vector<int>();
    int hits = 0;
    long long face_sum = 0;
    double t_sum = 0;
    for (int i = 0; i < n; ++i)
        if (t[static_cast<std::size_t>(i)] >= 0) {
            ++hits;
            face_sum += fc[static_cast<std::size_t>(i)];
            t_sum += t[static_cast<std::size_t>(i)];
        }
    CHECK(hits == 915);
    CHECK(face_sum == 5544);
    CHECK(t_sum == Approx(2353.3117458820343).epsilon(1e-6));

    Array qp = Array::from_vector(geometry_inputs::query_points(n, 4.0));
    Array nearest = Array::zeros(vec3, {n}), dist = Array::zeros(f32, {n});
    m.kernel("closest").launch({n}, {mesh, qp, 0.75f, faces, nearest, dist});
    const auto d = dist.to_vector<float>();
    int found = 0;
    double d_sum = 0;
    for (float v : d)
        if (v >= 0) {
            ++found;
            d_sum += v;
        }
    CHECK(found == 188);
    CHECK(d_sum == Approx(80.21022737771273).epsilon(1e-6));
}

TEST_CASE("a mesh reads the points array it was built from: a kernel moves them, refit follows") {
    GeometryFixture f;
    const geometry_inputs::Mesh box = geometry_inputs::box_mesh();
    std::optional<Array> held = Array::from_vector(box.points);
    Array &points = *held;
    Object mesh = f.host->create("mesh", {{"points", points}, {"indices", Array::from_vector(i32, box.indices)}});
    const CompiledModule m = f.kernels();
    const std::string shift_src = R"(import warp as wp
@wp.kernel
def shift(points: wp.array(dtype=wp.vec3), d: wp.vec3):
    i = wp.tid()
    points[i] = points[i] + d
)";
    const Kernel shift = f.host->load_module_source("shift_points", shift_src).kernel("shift");
    shift.launch({8}, {points, values::vec3f{{10.0f, 0.0f, 0.0f}}});
    mesh.call("refit");
    // A ray down the x axis from x = 20 meets the moved box's +x face at x = 10.7.
    Array faces = Array::zeros(i32, {1}), ts = Array::zeros(f32, {1}), normals = Array::zeros(vec3, {1}),
          signs = Array::zeros(f32, {1});
    m.kernel("raycast").launch({1}, {mesh, Array::from_vector(std::vector<values::vec3f>{{{20.0f, 0.05f, 0.05f}}}),
                                     Array::from_vector(std::vector<values::vec3f>{{{-1.0f, 0.0f, 0.0f}}}), faces, ts,
                                     normals, signs});
    CHECK(ts.to_vector<float>()[0] == Approx(9.3f));
    CHECK(normals.to_vector<values::vec3f>()[0].c[0] == Approx(1.0f));
    // The vertices kernels read are the moved ones (mesh_get_point takes a face-vertex index, as Warp's).
    double want = 0;
    for (int k = 0; k < 8; ++k) want += box.points[static_cast<std::size_t>(box.indices[static_cast<std::size_t>(k)])].c[0] + 10.0;
    Array total = Array::zeros(vec3, {1});
    m.kernel("vertex_sum").launch({8}, {mesh, 8, total});
    CHECK(total.to_vector<values::vec3f>()[0].c[0] == Approx(want));
    // The mesh keeps the array: dropping the caller's handle changes nothing.
    held.reset();
    m.kernel("vertex_sum").launch({8}, {mesh, 8, total});
    CHECK(total.to_vector<values::vec3f>()[0].c[0] == Approx(2 * want));
}

TEST_CASE("bad meshes and boxes are refused with the argument named, and nothing stays allocated") {
    GeometryFixture f;
    const geometry_inputs::Mesh box = geometry_inputs::box_mesh();
    Array points = Array::from_vector(box.points);
    const auto mesh_error = [&](std::vector<int> indices, Array pts) {
        return message_of<UserError>([&] {
            f.host->create("mesh", {{"points", pts}, {"indices", Array::from_vector(i32, indices)}});
        });
    };
    CHECK_THAT(mesh_error({0, 1, 2, 3}, points),
               Catch::Contains("plugin 'mesh', object type 'mesh', constructor: indices: 4 values is not a multiple of 3"));
    CHECK_THAT(mesh_error({0, 1, 8}, points), Catch::Contains("indices[2] = 8 is outside the 8 points"));
    CHECK_THAT(mesh_error({0, -1, 2}, points), Catch::Contains("indices[1] = -1 is outside the 8 points"));
    CHECK_THAT(mesh_error({}, points), Catch::Contains("indices: a mesh needs at least one triangle"));
    std::vector<values::vec3f> nan_points = box.points;
    nan_points[5].c[2] = std::nanf("");
    CHECK_THAT(mesh_error({0, 1, 5}, Array::from_vector(nan_points)), Catch::Contains("points[5] is not finite"));
    CHECK_THAT(message_of<UserError>([&] {
                   f.host->create("mesh", {{"points", points},
                                           {"indices", Array::from_vector(i32, box.indices)},
                                           {"velocities", Array::zeros(vec3, {3})}});
               }),
               Catch::Contains("velocities: 3 values for 8 points"));
    CHECK_THAT(message_of<UserError>([&] {
                   f.host->create("mesh", {{"points", points}, {"indices", Array::from_vector(i32, box.indices)}},
                                  Device::cuda(0));
               }),
               Catch::Contains("argument 'points': the array is on cpu, the object on cuda:0"));
    CHECK_THAT(message_of<UserError>([&] {
                   f.host->create("bvh", {{"lowers", Array::from_vector(std::vector<values::vec3f>{{{1, 0, 0}}})},
                                          {"uppers", Array::from_vector(std::vector<values::vec3f>{{{0, 1, 1}}})}});
               }),
               Catch::Contains("plugin 'bvh', object type 'bvh', constructor: lowers[0] is above uppers[0] on axis 0"));
    CHECK_THAT(message_of<UserError>([&] {
                   f.host->create("bvh", {{"lowers", Array::zeros(vec3, {2})}, {"uppers", Array::zeros(vec3, {3})}});
               }),
               Catch::Contains("uppers: 3 boxes, but lowers has 2"));
    const ObjectStats s = f.host->object_stats();
    CHECK(s.live == 0);
    CHECK(s.device_bytes == 0);
    CHECK(s.host_bytes == 0);
}

// ---------------------------------------------------------------------------
// The ABI itself, through a plugin written in plain C (tests/plugins/object_kit).

namespace {

struct KitFixture {
    TempDir cache{"object_kit"};
    std::vector<std::string> log;
    std::unique_ptr<Host> host;
    explicit KitFixture(const char *mode = nullptr) {
        if (mode) ::setenv("OBJECT_KIT_MODE", mode, 1);
        else ::unsetenv("OBJECT_KIT_MODE");
        HostOptions o = weft::test::cached_host_options(cache.path);
        o.log_sink = [this](LogLevel level, std::string_view, std::string_view message) {
            if (level >= LogLevel::Warning) log.emplace_back(message);
        };
        host = std::make_unique<Host>(std::move(o));
    }
    ~KitFixture() { ::unsetenv("OBJECT_KIT_MODE"); }
    const fs::path plugin = fs::path(WEFT_TEST_PLUGIN_DIR) / "object_kit";
    Kernel reader() {
        return host->load_module_source("kit_reader", R"(import warp as wp
@wp.kernel
def read(counter: wp.uint64, out: wp.array(dtype=wp.int64)):
    out[0] = kit_counter_value(counter)
)").kernel("read");
    }
    int destroyed(const Object &any) {
        Array out = Array::zeros(i32, {1});
        any.call("report", {{"out", out}});
        return out.to_vector<int>()[0];
    }
};

std::int64_t read_counter(const Kernel &k, const Object &o) {
    Array out = Array::zeros(Type::scalar(Scalar::Int64), {1});
    k.launch({1}, {o, out});
    return out.to_vector<std::int64_t>()[0];
}

} // namespace

TEST_CASE("a C plugin's object: kernels read it by id, methods change it and its id, arguments of every kind arrive") {
    KitFixture f;
    f.host->load(f.plugin);
    const Kernel read = f.reader();
    Object c = f.host->create("kit_counter", {{"start", std::int64_t{5}}});
    CHECK(read_counter(read, c) == 5);
    c.call("add", {{"amount", std::int64_t{3}}});
    CHECK(read_counter(read, c) == 8);
    const std::uint64_t before = c.id();
    c.call("rekey");
    CHECK(c.id() != before);
    CHECK(read_counter(read, c) == 8);
    CHECK_THAT(message_of<UserError>([&] { c.call("add", {{"amount", std::int64_t{2000000}}}); }),
               Catch::Contains("plugin 'object_kit', object type 'kit_counter', method 'add': amount: the counter would pass 1000000"));
    CHECK(read_counter(read, c) == 8); // a failed method left the object as it was
    // A float32 array and another object of the type (the plugin receives its own handle).
    Object d = f.host->create("kit_counter", {{"start", std::int64_t{1}},
                                              {"source", Array::from_vector(f32, std::vector<float>{1.5f, 2.5f})},
                                              {"other", c}});
    CHECK(read_counter(read, d) == 1 + 1 + 2 + 8);
    CHECK_THAT(message_of<UserError>([&] { f.host->create("kit_counter", {{"start", std::int64_t{0}}, {"other", std::int64_t{3}}}); }),
               Catch::Contains("argument 'other': expects an object of type 'kit_counter', got an integer"));
    CHECK_THAT(message_of<UserError>([&] {
                   f.host->create("kit_counter", {{"start", std::int64_t{0}}, {"source", Array::zeros(i32, {2})}});
               }),
               Catch::Contains("argument 'source': expects array(dtype=float32), got array(dtype=int32)"));
}

TEST_CASE("each object is destroyed once, when its last reference goes, and what a plugin leaves allocated the host frees") {
    KitFixture f;
    f.host->load(f.plugin);
    Object keeper = f.host->create("kit_counter", {{"start", std::int64_t{0}}});
    const int at_start = f.destroyed(keeper);
    {
        Object a = f.host->create("kit_counter", {{"start", std::int64_t{1}}});
        Object copy = a;
        a = Object();
        CHECK(f.destroyed(keeper) == at_start); // `copy` still holds it
        CHECK(f.host->object_stats().live == 2);
    }
    CHECK(f.destroyed(keeper) == at_start + 1);
    // A constructor that fails after allocating: no destroy, nothing left.
    const ObjectStats before = f.host->object_stats();
    CHECK_THAT(message_of<UserError>([&] { f.host->create("kit_counter", {{"start", std::int64_t{1}}, {"label", std::string("fail")}}); }),
               Catch::Contains("constructor: label: asked to fail after allocating"));
    CHECK_THAT(message_of<UserError>([&] { f.host->create("kit_counter", {{"start", std::int64_t{-1}}}); }),
               Catch::Contains("plugin 'object_kit', object type 'kit_counter', constructor: start: must not be negative"));
    CHECK(f.destroyed(keeper) == at_start + 1);
    CHECK(f.host->object_stats().device_bytes == before.device_bytes);
    CHECK(f.host->object_stats().host_bytes == before.host_bytes);
    // A garbage size fails the callback (no wrapped-around small block), with a message.
    CHECK_THAT(message_of<UserError>([&] { f.host->create("kit_counter", {{"start", std::int64_t{1}}, {"label", std::string("huge")}}); }),
               Catch::Contains("constructor: cannot allocate 18446744073709551605 bytes of host memory"));
    // destroy that leaves memory behind: freed by the host, with a warning naming the object.
    {
        Object leaky = f.host->create("kit_counter", {{"start", std::int64_t{1}}, {"label", std::string("leak")}});
        CHECK(leaky.device_bytes() == 8 + 1000);
    }
    REQUIRE(f.log.size() == 1);
    CHECK_THAT(f.log[0], Catch::Contains("kit_counter #") && Catch::Contains("destroy left 1000 bytes allocated; the host freed them"));
    CHECK(f.host->object_stats().device_bytes == before.device_bytes);
}

TEST_CASE("a refused object type takes the whole plugin with it, naming what was wrong") {
    const std::pair<const char *, const char *> cases[] = {
        {"outside", "object type 'elsewhere': name is outside the builtin prefixes the plugin owns ('kit_')"},
        {"null_create", "object type 'kit_counter': create is NULL"},
        {"bad_type", "object type 'kit_counter', constructor: parameter 'start' has type 'quaternion_of_doom'"},
        {"twice", "object type 'kit_counter' registered twice"},
    };
    for (const auto &[mode, message] : cases) {
        INFO(mode);
        KitFixture f(mode);
        CHECK_THAT(message_of<UserError>([&] { f.host->load(f.plugin); }),
                   Catch::Contains(message) && Catch::Contains("nothing of the plugin was registered"));
        CHECK(f.host->object_types().empty());
        CHECK_FALSE(f.host->registry().has_builtin("kit_counter_value"));
        CHECK_FALSE(f.host->plugin("object_kit"));
    }
}

TEST_CASE("gradients flow through a hash-grid neighbour loop: the backward pass replays the query") {
    Fixture f;
    const std::string src = R"(import warp as wp
@wp.kernel
def energy(grid: wp.uint64, points: wp.array(dtype=wp.vec3), radius: float, e: wp.array(dtype=float)):
    tid = wp.tid()
    x = points[tid]
    for j in wp.hash_grid_query(grid, x, radius):
        if j != tid:
            d = wp.length(x - points[j])
            if d < radius:
                wp.atomic_add(e, 0, (radius - d) * (radius - d))
)";
    const Kernel energy = f.host->load_module_source("grid_energy", src).kernel("energy");
    const int n = 200;
    const float radius = 1.2f;
    const std::vector<values::vec3f> base = golden_points(n, 4.0);
    Array points = Array::from_vector(Type::vector(Scalar::Float32, 3), base, Device::cpu(), true);
    Object grid = f.grid(8);
    grid.call("build", {{"points", points}, {"radius", double{radius}}});
    Array e = Array::zeros(f32, {1}, Device::cpu(), true);
    Tape tape;
    {
        auto scope = tape.record();
        energy.launch({n}, {grid, points, radius, e});
    }
    tape.backward(e);
    const std::vector<values::vec3f> grad = points.grad().to_vector<values::vec3f>();
    // The exact gradient, in double on the host: every ordered pair (i, j) closer than
    // the radius adds (r - d)^2, so dE/dx_i = sum over j of -4 (r - d) (x_i - x_j) / d.
    int checked = 0;
    for (int i = 3; i < n; i += 41) {
        double want[3] = {0, 0, 0};
        for (int j = 0; j < n; ++j) {
            if (j == i) continue;
            double dv[3], d = 0;
            for (int k = 0; k < 3; ++k) {
                dv[k] = static_cast<double>(base[static_cast<std::size_t>(i)].c[k]) - base[static_cast<std::size_t>(j)].c[k];
                d += dv[k] * dv[k];
            }
            d = std::sqrt(d);
            if (d >= radius) continue;
            for (int k = 0; k < 3; ++k) want[k] += -4.0 * (radius - d) * dv[k] / d;
        }
        for (int k = 0; k < 3; ++k) {
            INFO("point " << i << " axis " << k);
            CHECK(grad[static_cast<std::size_t>(i)].c[k] == Approx(want[k]).margin(1e-4).epsilon(1e-4));
            ++checked;
        }
    }
    CHECK(checked == 15);
    double norm = 0;
    for (const auto &g : grad) norm += std::abs(g.c[0]) + std::abs(g.c[1]) + std::abs(g.c[2]);
    CHECK(norm > 1.0); // not a vacuous zero gradient
}

TEST_CASE("a query advanced outside a loop condition has no backward pass, and says why when one is asked for") {
    Fixture f;
    const std::string src = R"(import warp as wp
@wp.kernel
def first_neighbor(grid: wp.uint64, points: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    tid = wp.tid()
    q = wp.hash_grid_query(grid, points[tid], 1.0)
    j = int(0)
    found = wp.hash_grid_query_next(q, j)
    if found:
        out[tid] = wp.length(points[tid] - points[j])
)";
    const Kernel k = f.host->load_module_source("stray_next", src).kernel("first_neighbor");
    Array points = Array::from_vector(Type::vector(Scalar::Float32, 3), golden_points(16, 2.0), Device::cpu(), true);
    Object grid = f.grid(4);
    grid.call("build", {{"points", points}, {"radius", 1.0}});
    Array out = Array::zeros(f32, {16}, Device::cpu(), true);
    Tape tape;
    {
        auto scope = tape.record();
        k.launch({16}, {grid, points, out}); // the forward pass runs
    }
    CHECK(out.to_vector<float>()[0] >= 0.0f);
    CHECK_THAT(message_of<UserError>([&] { tape.backward(out); }),
               Catch::Contains("calls 'hash_grid_query_next', which writes its argument 'query', outside a loop "
                               "condition: a backward pass cannot walk that write back"));
}
