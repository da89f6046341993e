// CUDA code generation compiled by NVRTC (no GPU needed): artifacts in target
// order from the cache, the native-type ABI contract under NVRTC (field
// offsets included), and the external_constant_params entry ABI as an
// OptiX-style runtime would see it in the PTX.
#include "skip.hpp"
#include "test_support.hpp"

#include "weft/backend/cuda.hpp"
#include "weft/host/host.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>

using namespace weft;
using weft::test::message_of;
namespace fs = std::filesystem;

namespace {

struct Workspace {
    fs::path path;
    explicit Workspace(const std::string &name) : path(fs::temp_directory_path() / ("weft_cuda_" + name)) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~Workspace() { fs::remove_all(path); }
    fs::path write(const std::string &file, const std::string &text) const {
        std::ofstream(path / file, std::ios::binary) << text;
        return path / file;
    }
};

HostOptions options_for(const Workspace &w) {
    HostOptions o = weft::test::test_host_options();
    o.cache_dir = w.path / "cache";
    o.quiet = true;
    return o;
}

std::string read(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

#define REQUIRE_NVRTC()                                                                                               \
    if (!backend::nvrtc_available()) {                                                                                \
        test::skip("weft was built without a CUDA toolkit (NVRTC)");                                                \
    }

const char *saxpy = R"(import warp as wp
@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]
)";

const char *external = R"(import warp as wp

@wp.struct
class Params:
    scale: float
    out: wp.array(dtype=float)

@wp.kernel(enable_backward=False, entry_point_abi="external_constant_params", name="__raygen__external_params_kernel")
def raygen(p: Params):
    p.out[0] = p.scale * 2.0

@wp.kernel(enable_backward=False, entry_point_abi="external_constant_params", name="__miss__external_params_kernel")
def miss(p: Params):
    p.out[1] = p.scale
)";

} // namespace

TEST_CASE("AOT: artifact paths in target order - a second build compiles nothing and leaves the files alone") {
    REQUIRE_NVRTC();
    Workspace w("aot");
    const fs::path file = w.write("saxpy.py", saxpy);
    const std::vector<Target> targets{Target::cpu(), Target::cuda_cubin(90), Target::cuda_ptx(90), Target::cuda_cubin(80)};
    std::vector<fs::path> first;
    {
        Host host(options_for(w));
        first = host.compile_aot(file, targets);
    }
    REQUIRE(first.size() == 4);
    CHECK_THAT(first[0].filename().string(), Catch::StartsWith("cpu."));
    CHECK_THAT(first[1].filename().string(), Catch::StartsWith("cuda-sm_90-cubin."));
    CHECK_THAT(first[2].filename().string(), Catch::StartsWith("cuda-compute_90-ptx."));
    CHECK_THAT(first[3].filename().string(), Catch::StartsWith("cuda-sm_80-cubin."));
    CHECK(read(first[1]).rfind("\x7f" "ELF", 0) == 0);
    const std::string ptx = read(first[2]);
    CHECK_THAT(ptx, Catch::Contains(".target sm_90") && Catch::Contains(".visible .entry wk5saxpy_cuda("));
    std::vector<fs::file_time_type> mtimes;
    for (const fs::path &p : first) mtimes.push_back(fs::last_write_time(p));
    Host again(options_for(w));
    const std::vector<fs::path> second = again.compile_aot(file, targets);
    CHECK(second == first);
    for (std::size_t i = 0; i < first.size(); ++i) CHECK(fs::last_write_time(second[i]) == mtimes[i]);
}

TEST_CASE("AOT: fmad and line info reach NVRTC and the hash") {
    REQUIRE_NVRTC();
    Workspace w("fmad");
    const fs::path file = w.write("saxpy.py", saxpy);
    Host host(options_for(w));
    ModuleLoadOptions plain, no_fmad, lines;
    no_fmad.fmad = false;
    lines.line_info = true;
    const fs::path a = host.compile_aot(file, {Target::cuda_ptx(90)}, plain).at(0);
    const fs::path b = host.compile_aot(file, {Target::cuda_ptx(90)}, no_fmad).at(0);
    const fs::path c = host.compile_aot(file, {Target::cuda_ptx(90)}, lines).at(0);
    // Three hashes, three artifacts.
    CHECK(a != b);
    CHECK(a != c);
    CHECK(b != c);
    // alpha * x[i] + y[i]: contracted into one fma by default, a mul and an add without fmad.
    const std::string fused = read(a), split = read(b), located = read(c);
    CHECK_THAT(fused, Catch::Contains("fma.rn.f32"));
    CHECK_THAT(split, !Catch::Contains("fma.rn.f32") && Catch::Contains("mul.rn.f32") && Catch::Contains("add.rn.f32"));
    // Line info points profilers at the kernel source.
    const std::regex loc(R"(\.loc\s+[0-9]+\s+[0-9]+)"), file_entry(R"(\.file\s+[0-9]+\s+"[^"]*saxpy\.py")");
    CHECK_FALSE(std::regex_search(fused, loc));
    CHECK(std::regex_search(located, loc));
    CHECK(std::regex_search(located, file_entry));
}

TEST_CASE("external_constant_params: the PTX an OptiX-style runtime looks for") {
    REQUIRE_NVRTC();
    Workspace w("external");
    const fs::path file = w.write("optix_like.py", external);
    Host host(options_for(w));
    const std::string ptx = read(host.compile_aot(file, {Target::cuda_ptx(90)})[0]);
    // Both entries by their name=, without parameters; one params symbol of exactly sizeof(Params)
    // (float + padding + the 64-byte array view = 72 bytes) with Params' alignment (8).
    CHECK(std::regex_search(ptx, std::regex(R"(\.visible \.entry __raygen__external_params_kernel\(\s*\))")));
    CHECK(std::regex_search(ptx, std::regex(R"(\.visible \.entry __miss__external_params_kernel\(\s*\))")));
    // .visible: OptiX links the PTX and finds the params variable by name (relocatable device code).
    CHECK(std::regex_search(ptx, std::regex(R"(\.visible \.const \.align 8 \.b8 params\[72\];)")));
    // The CPU backend rejects it with the seed's meaning.
    CHECK_THAT(message_of<UserError>([&] { host.compile_aot(file, {Target::cpu()}); }),
               Catch::Contains("kernel 'raygen' uses entry_point_abi='external_constant_params', which is not supported by "
                               "the CPU backend"));
}

TEST_CASE("external_constant_params kernels that break the entry ABI are codegen errors") {
    REQUIRE_NVRTC();
    Workspace w("external_bad");
    Host host(options_for(w));
    auto error_of = [&](const std::string &name, const std::string &body) {
        const fs::path file = w.write(name + ".py", std::string(R"(import warp as wp
@wp.struct
class P:
    a: float
@wp.struct
class Q:
    b: int
)") + body);
        return message_of<UserError>([&] { host.compile_aot(file, {Target::cuda_ptx(90)}); });
    };
    const std::string decorator = "@wp.kernel(enable_backward=False, entry_point_abi=\"external_constant_params\")\n";
    CHECK_THAT(error_of("two_params", decorator + "def k(p: P, x: float):\n    pass\n"),
               Catch::Contains("kernel 'k' uses entry_point_abi='external_constant_params' and must take exactly one "
                               "@wp.struct parameter (it takes 2 parameters)"));
    CHECK_THAT(error_of("scalar_param", decorator + "def k(x: float):\n    pass\n"),
               Catch::Contains("(it takes 1 parameter of type float32)"));
    CHECK_THAT(error_of("uses_tid", decorator + "def k(p: P):\n    i = wp.tid()\n"),
               Catch::Contains("kernel 'k' uses entry_point_abi='external_constant_params' and cannot call tid()"));
    CHECK_THAT(error_of("mixed", decorator + "def k(p: P):\n    pass\n" + decorator + "def m(q: Q):\n    pass\n"),
               Catch::Contains("every external_constant_params kernel of a module shares one params type; this one "
                               "takes Q, another takes P"));
}

TEST_CASE("a lying native-type field offset fails under NVRTC too, naming plugin, type and field") {
    REQUIRE_NVRTC();
    Workspace w("lying");
    Host host(options_for(w));
    host.load(weft::test::plugin_dir("lying_offset"));
    const fs::path file = w.write("lying.py", R"(import warp as wp
@wp.kernel
def k(p: wp.array(dtype=lie.Pair)):
    i = wp.tid()
    q = p[i]
    q.a = 1.0
    p[i] = q
)");
    const std::string message = message_of<UserError>([&] { host.compile_aot(file, {Target::cuda_ptx(90)}); });
    CHECK_THAT(message, Catch::Contains("plugin 'lying_offset': native type lie::Pair, field 'a': the plugin declares "
                                        "offset 0, the header disagrees"));
    CHECK_THAT(message, Catch::Contains("does not compile for cuda-compute_90-ptx"));
}

TEST_CASE("AOT into a directory - the artifact a device loads, and a clear error listing what was tried") {
    REQUIRE_NVRTC();
    Workspace w("aot_dir");
    const fs::path file = w.write("saxpy.py", saxpy);
    const fs::path out = w.path / "aot";
    Host host(options_for(w));
    const std::vector<fs::path> paths =
        host.compile_aot(file, {Target::cuda_cubin(90), Target::cuda_ptx(80)}, {}, out);
    REQUIRE(paths.size() == 2);
    CHECK(paths[0] == out / "saxpy.cuda-sm_90-cubin.cubin");
    CHECK(paths[1] == out / "saxpy.cuda-compute_80-ptx.ptx");
    const auto mtime = fs::last_write_time(paths[0]);
    CHECK(host.compile_aot(file, {Target::cuda_cubin(90)}, {}, out)[0] == paths[0]);
    CHECK(fs::last_write_time(paths[0]) == mtime);
    // sm_90: its CUBIN; sm_86: no CUBIN, the compute_80 PTX (forward-compatible); sm_75: nothing fits.
    CHECK(find_aot_artifact(out, "saxpy", 90) == paths[0]);
    CHECK(find_aot_artifact(out, "saxpy", 86) == paths[1]);
    const std::string message = message_of<UserError>([&] { find_aot_artifact(out, "saxpy", 75); });
    CHECK_THAT(message, Catch::Contains("no AOT artifact of module 'saxpy' fits compute capability 7.5; tried:"));
    CHECK_THAT(message, Catch::Contains((out / "saxpy.cuda-sm_75-cubin.cubin").string()));
    CHECK_THAT(message, Catch::Contains((out / "saxpy.cuda-compute_75-ptx.ptx").string()));
}

TEST_CASE("lying field types and sizes fail on both backends, naming plugin, type and field") {
    REQUIRE_NVRTC();
    Workspace w("lying_layout");
    Host host(options_for(w));
    host.load(weft::test::plugin_dir("lying_layout"));
    auto errors = [&](const std::string &name, const std::string &type) {
        const fs::path file = w.write(name + ".py", "import warp as wp\n@wp.kernel\ndef k(p: wp.array(dtype=" + type +
                                                        ")):\n    q = p[0]\n    p[0] = q\n");
        return std::pair{message_of<UserError>([&] { host.compile_aot(file, {Target::cpu()}); }),
                         message_of<UserError>([&] { host.compile_aot(file, {Target::cuda_ptx(90)}); })};
    };
    const auto [typed_cpu, typed_cuda] = errors("typed", "lay.Typed");
    for (const std::string &m : {typed_cpu, typed_cuda})
        CHECK_THAT(m, Catch::Contains("plugin 'lying_layout': native type lay::Typed, field 'a': the plugin declares type "
                                      "float32, the header disagrees"));
    const auto [sized_cpu, sized_cuda] = errors("sized", "lay.Sized");
    for (const std::string &m : {sized_cpu, sized_cuda})
        CHECK_THAT(m, Catch::Contains("plugin 'lying_layout': native type lay::Sized: the plugin declares size 8, the "
                                      "header disagrees"));
}

TEST_CASE("NVRTC keeps a kernel's endless loop: while True spins as written") {
    REQUIRE_NVRTC();
    Workspace w("endless");
    const fs::path file = w.write("endless.py", R"(import warp as wp


@wp.kernel
def spin(a: wp.array(dtype=int)):
    i = wp.tid()
    x = int(0)
    while True:
        x = x + 1
    a[i] = x
)");
    Host host(options_for(w));
    const std::string ptx = read(host.compile_aot(file, {Target::cuda_ptx(90)})[0]);
    const std::size_t entry = ptx.find("spin_cuda(");
    REQUIRE(entry != std::string::npos);
    // Without a side effect in the loop, C++'s forward-progress rule lets the
    // compiler delete it and the entry is a bare `ret`; it must branch back.
    CHECK(ptx.find("bra", entry) != std::string::npos);
}

TEST_CASE("launch_bounds= reaches the PTX, and the module's options reach NVRTC") {
    REQUIRE_NVRTC();
    Workspace w("launch_bounds");
    const fs::path file = w.write("bounded.py", R"(import warp as wp

wp.set_module_options({"lineinfo": True})


@wp.kernel(launch_bounds=(128, 2), grid_stride=True)
def bounded(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * 2.0


@wp.kernel
def free(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0
)");
    Host host(options_for(w));
    const std::string ptx = read(host.compile_aot(file, {Target::cuda_ptx(90)})[0]);
    // Only the bounded entry carries the limit; lineinfo puts .loc directives in the PTX.
    CHECK(std::regex_search(ptx, std::regex(R"(\.entry wk7bounded_cuda\([^)]*\)\s*\.maxntid 128, 1, 1)")));
    CHECK_FALSE(std::regex_search(ptx, std::regex(R"(\.entry wk4free_cuda\([^)]*\)\s*\.maxntid)")));
    CHECK(ptx.find(".loc") != std::string::npos);
}
