// Warm loads through content-key records (issue 20): a module loaded before
// loads again, in a new host, without the front end; every input that can
// change its code still misses the record; a damaged record is a miss, never
// a crash or another module's code.
#include "skip.hpp"
#include "test_support.hpp"

#include "weft/backend/cuda.hpp"
#include "weft/cache/cache.hpp"
#include "weft/host/host.hpp"
#include "weft/pipeline/pipeline.hpp"
#include "weft/support/build_identity.hpp"
#include "weft/support/sha256.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

using namespace weft;
namespace fs = std::filesystem;

namespace {

const Type f32 = Type::scalar(Scalar::Float32);

std::string scale_source(const std::string &factor) {
    return "import warp as wp\n\n@wp.struct\nclass P:\n    k: float\n    v: wp.vec3\n\n"
           "@wp.kernel\ndef scale(x: wp.array(dtype=float), p: P, f: float):\n    i = wp.tid()\n"
           "    x[i] = x[i] * " + factor + " + p.k * 0.0\n";
}

using weft::test::TempDir;

HostOptions options_for(const fs::path &cache) { return weft::test::cached_host_options(cache); }

void write(const fs::path &file, const std::string &text) { std::ofstream(file, std::ios::binary) << text; }

std::string read(const fs::path &file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

float run_scale(const CompiledModule &m, float value) {
    Array x = Array::from_vector(f32, std::vector<float>{value});
    const Kernel k = m.kernel("scale");
    REQUIRE(k.params().size() == 3);
    CHECK(k.params()[1].type.name() == "P");
    // A struct argument of the recorded layout: 4 bytes of float, padding, then a vec3.
    std::vector<std::uint8_t> p(k.params()[1].type.size(), 0);
    k.launch({1}, {x, KernelArg::value(k.params()[1].type, p.data(), p.size()), 1.0f});
    return x.to_vector<float>()[0];
}

/// What a fresh host (as in a new process) does with the module.
struct Outcome {
    float result = 0;
    std::uint64_t warm_hits = 0, local_hits = 0, compiles = 0;
};

void require_build_id() {
    if (build_identity().empty()) weft::test::skip("this build has no GNU build ID");
}

Outcome load_fresh(const fs::path &cache, const std::string &name, const std::string &source, ModuleLoadOptions o = {},
                   const std::function<void(Host &)> &setup = {}) {
    Host host(options_for(cache));
    if (setup) setup(host);
    CompiledModule m = host.load_module_source(name, source, o);
    Outcome out;
    out.result = run_scale(m, 2.0f);
    const CacheCounters c = host.cache_counters();
    out.warm_hits = c.warm_hits;
    out.local_hits = c.local_hits;
    out.compiles = c.compiles;
    return out;
}

std::vector<fs::path> key_records(const fs::path &cache) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(cache / "v1" / "keys", ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".key") out.push_back(it->path());
    return out;
}

/// Rewrites the record's text and signs it again, as a record weft wrote.
void rewrite(const fs::path &record, const std::string &good, const std::function<void(std::string &)> &edit) {
    std::string body = good.substr(good.find('\n') + 1);
    edit(body);
    write(record, "weft-key v1 " + sha256_hex(body) + "\n" + body);
}

/// Replaces the first `from` in `text` (which must hold it) by `to`.
void replace_first(std::string &text, const std::string &from, const std::string &to) {
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
}

/// The line of `text` that starts with `prefix` (which must be there).
std::string line_starting(const std::string &text, const std::string &prefix) {
    const std::size_t at = text.rfind(prefix, 0) == 0 ? 0 : text.find("\n" + prefix);
    REQUIRE(at != std::string::npos);
    const std::size_t begin = at == 0 ? 0 : at + 1;
    return text.substr(begin, text.find('\n', begin) - begin);
}

} // namespace

TEST_CASE("warm load skips the front end") {
    require_build_id();
    TempDir dir("warm_skip");
    const Outcome cold = load_fresh(dir.path, "m", scale_source("3.0"));
    CHECK(cold.compiles == 1);
    CHECK(cold.warm_hits == 0);
    CHECK(cold.result == 6.0f);
    REQUIRE(key_records(dir.path).size() == 1);
    const Outcome warm = load_fresh(dir.path, "m", scale_source("3.0"));
    CHECK(warm.compiles == 0);
    CHECK(warm.warm_hits == 1);
    CHECK(warm.result == 6.0f);
    // The same host again: the loaded module, found through the record.
    Host host(options_for(dir.path));
    CompiledModule a = host.load_module_source("m", scale_source("3.0"));
    CHECK(run_scale(a, 2.0f) == 6.0f);
    // A warm load and its launches register no core builtins (they were two
    // thirds of such a load in a new process); the first lookup does.
    CHECK(host.registry().core_builtins_pending());
    CHECK(host.registry().has_builtin("add"));
    CHECK_FALSE(host.registry().core_builtins_pending());
    CompiledModule b = host.load_module_source("m", scale_source("3.0"));
    CHECK(a.hash() == b.hash());
    CHECK(a.from_cache());
}

TEST_CASE("every input of the module misses the warm record") {
    require_build_id();
    TempDir dir("warm_inputs");
    const fs::path dep = dir.path / "dep.h";
    write(dep, "// one\n");
    ModuleLoadOptions base;
    ModuleBuildOptions with_dep;
    with_dep.extra_build_dependencies = {dep.string()};
    base.build_options = with_dep;
    REQUIRE(load_fresh(dir.path, "m", scale_source("3.0"), base).compiles == 1);
    REQUIRE(load_fresh(dir.path, "m", scale_source("3.0"), base).warm_hits == 1);

    SECTION("source text") {
        const Outcome o = load_fresh(dir.path, "m", scale_source("4.0"), base);
        CHECK(o.warm_hits == 0);
        CHECK(o.compiles == 1);
        CHECK(o.result == 8.0f);
    }
    SECTION("module name") {
        const Outcome o = load_fresh(dir.path, "n", scale_source("3.0"), base);
        CHECK(o.warm_hits == 0);
        CHECK(o.compiles == 1);
    }
    SECTION("load options") {
        ModuleLoadOptions o = base;
        SECTION("opt level") { o.opt_level = 1; }
        SECTION("fast math") { o.fast_math = true; }
        SECTION("debug") { o.debug = true; }
        SECTION("native signature checks") { o.check_native_signatures = true; }
        const Outcome out = load_fresh(dir.path, "m", scale_source("3.0"), o);
        CHECK(out.warm_hits == 0);
        CHECK(out.compiles == 1);
        CHECK(out.result == 6.0f);
    }
    SECTION("a define in the module's preamble") {
        ModuleLoadOptions o = base;
        ModuleBuildOptions b = with_dep;
        b.extra_cpu_preamble = "#define WARM_TEST 1";
        o.build_options = b;
        const Outcome out = load_fresh(dir.path, "m", scale_source("3.0"), o);
        CHECK(out.warm_hits == 0);
        CHECK(out.compiles == 1);
    }
    SECTION("the content of a dependency file") {
        write(dep, "// two\n");
        const Outcome o = load_fresh(dir.path, "m", scale_source("3.0"), base);
        CHECK(o.warm_hits == 0);
        CHECK(o.compiles == 1);
        CHECK(load_fresh(dir.path, "m", scale_source("3.0"), base).warm_hits == 1);
    }
    SECTION("the module's plugins, named") {
        ModuleLoadOptions o = base;
        o.plugins = std::vector<std::string>{"wt_color"}; // its preamble: #define WT_COLOR 1
        const Outcome out =
            load_fresh(dir.path, "m", scale_source("3.0"), o, [](Host &h) { h.load(weft::test::plugin_dir("wt_color")); });
        CHECK(out.warm_hits == 0);
        CHECK(out.compiles == 1);
    }
    SECTION("another plugin loaded: the registry's contracts differ") {
        // The module references nothing of it: its hash, and so its artifact, is the same.
        const Outcome o =
            load_fresh(dir.path, "m", scale_source("3.0"), base, [](Host &h) { h.load(weft::test::plugin_dir("wt_color")); });
        CHECK(o.warm_hits == 0);
        CHECK(o.compiles == 0);
        CHECK(o.local_hits == 1);
    }
    SECTION("a builtin the application registers") {
        const Outcome o = load_fresh(dir.path, "m", scale_source("3.0"), base, [](Host &h) {
            auto tx = h.registry().begin("app");
            tx.add_builtin(BuiltinSpec{"app_twice", {{"x", "float32"}}, "float32", "app::twice", "", {}});
            tx.commit();
        });
        CHECK(o.warm_hits == 0);
        CHECK(o.compiles == 0);
    }
}

TEST_CASE("the content key covers the toolchain flags and the target") {
    require_build_id();
    TempDir dir("warm_key");
    Host host(options_for(dir.path));
    const pipeline::Pipeline pipeline(host.registry(), host.cache(), host.logger());
    const auto source = pipeline::ModuleSource::from_text("m", scale_source("3.0"));
    ModuleLoadOptions o;
    const std::string key = pipeline.content_key(source, Target::cpu(), o);
    REQUIRE(key.size() == 64);
    CHECK(pipeline.content_key(source, Target::cpu(), o) == key);
    ModuleLoadOptions native = o;
    native.native_cpu = true;
    CHECK(pipeline.content_key(source, Target::cpu(), native) != key);
    CHECK(pipeline.content_key(source, Target::cpu(), o, Pass::Backward) != key);
    if (!backend::nvrtc_available()) return; // built without a CUDA toolkit: no CUDA key
    // Every target has its own key (CUDA: NVRTC's version in place of Clang's flags).
    const std::string cuda_key = pipeline.content_key(source, Target::cuda_ptx(80), o);
    CHECK(cuda_key.size() == 64);
    CHECK(cuda_key != key);
    CHECK(pipeline.content_key(source, Target::cuda_cubin(80), o) != cuda_key);
    ModuleLoadOptions no_fmad = o;
    no_fmad.fmad = false; // a CUDA-only flag
    CHECK(pipeline.content_key(source, Target::cuda_ptx(80), no_fmad) != cuda_key);
}

TEST_CASE("a CUDA module's warm record names its CUBIN or PTX, found for either of the device's targets") {
    require_build_id();
    if (!backend::nvrtc_available()) test::skip("weft was built without a CUDA toolkit (NVRTC)");
    TempDir dir("warm_cuda");
    Host host(options_for(dir.path));
    const pipeline::Pipeline pipeline(host.registry(), host.cache(), host.logger());
    const auto source = pipeline::ModuleSource::from_text("m", scale_source("3.0"));
    ModuleLoadOptions o;
    // What a device of compute capability 8.0 loads: the CUBIN, else the PTX (modules::targets_for).
    const std::vector<Target> targets{Target::cuda_cubin(80), Target::cuda_ptx(80)};
    const pipeline::CheckedModule checked = pipeline.check(source);
    const std::vector<pipeline::GeneratedModule> generated = pipeline.generate(checked, {}, targets, o);
    REQUIRE(generated.size() == 2);
    const pipeline::Artifact ptx = pipeline.realize(generated[1]); // NVRTC, no device needed
    REQUIRE_FALSE(ptx.path.empty());

    // The CUBIN did not load, the PTX did: the record names the PTX, under the key of the preferred target.
    const std::string key = pipeline.content_key(source, targets.front(), o);
    pipeline::WarmRecord record;
    record.module = "m";
    record.target = ptx.target;
    record.modules.push_back({ptx.module, ptx.hash, ptx.kernels});
    pipeline.remember(key, record);

    const std::optional<pipeline::WarmRecord> found = pipeline.find_warm(key, "m", targets);
    REQUIRE(found);
    CHECK(found->target == Target::cuda_ptx(80));
    const std::optional<std::vector<pipeline::Artifact>> warm = pipeline.realize_warm(*found);
    REQUIRE(warm);
    REQUIRE(warm->size() == 1);
    CHECK(warm->front().bytes == ptx.bytes);
    CHECK(warm->front().kernels.front().symbol == ptx.kernels.front().symbol);
    CHECK(warm->front().kernels.front().params.size() == 3);
    // A device whose targets do not include the PTX's (another architecture) misses it.
    CHECK_FALSE(pipeline.find_warm(key, "m", {Target::cuda_cubin(90), Target::cuda_ptx(90)}));
    CHECK_FALSE(pipeline.find_warm(key, "m", {Target::cpu()}));
}

TEST_CASE("a damaged warm record is a miss, and is replaced") {
    require_build_id();
    TempDir dir("warm_damaged");
    REQUIRE(load_fresh(dir.path, "m", scale_source("3.0")).compiles == 1);
    const std::vector<fs::path> records = key_records(dir.path);
    REQUIRE(records.size() == 1);
    const fs::path record = records.front();
    const std::string good = read(record);

    SECTION("truncated") { write(record, good.substr(0, good.size() / 2)); }
    SECTION("empty") { write(record, ""); }
    SECTION("one byte changed") {
        std::string bad = good;
        bad[bad.size() - 10] ^= 1;
        write(record, bad);
    }
    SECTION("a directory") {
        fs::remove(record);
        fs::create_directories(record / "x");
    }
    SECTION("a symbolic link to a good record elsewhere") {
        const fs::path elsewhere = dir.path / "elsewhere.key";
        write(elsewhere, good);
        fs::remove(record);
        fs::create_symlink(elsewhere, record);
    }
    SECTION("well formed, naming another module") {
        rewrite(record, good, [](std::string &r) { replace_first(r, "\nmodule 1:m\n", "\nmodule 5:other\n"); });
    }
    SECTION("well formed, naming a module hash the cache lacks") {
        rewrite(record, good, [](std::string &r) {
            const std::string line = line_starting(r, "compiled ");
            const std::size_t hash_at = line.find(' ', std::string("compiled ").size()) + 1;
            replace_first(r, line, line.substr(0, hash_at) + std::string(64, 'a') + line.substr(hash_at + 64));
        });
    }
    SECTION("well formed, with a parameter type that does not rebuild to its code") {
        rewrite(record, good, [](std::string &r) { replace_first(r, "type 4:a1f4 64 a 1 s float32", "type 4:a1f4 64 a 1 s float64"); });
    }
    SECTION("well formed, with a parameter type of the wrong layout") {
        rewrite(record, good, [](std::string &r) { replace_first(r, "type 2:f4 4 s float32", "type 2:f4 8 s float32"); });
    }
    SECTION("well formed, with a parameter naming a type the record lacks") {
        rewrite(record, good, [](std::string &r) { replace_first(r, "param 1:f 2\n", "param 1:f 99\n"); });
    }
    SECTION("well formed, with a struct nested past any real one") {
        rewrite(record, good, [](std::string &r) {
            std::string deep;
            for (int i = 0; i < 100; ++i) deep += "a 1 ";
            replace_first(r, "type 4:a1f4 64 a 1 s float32", "type 4:a1f4 64 " + deep + "s float32");
        });
    }
    SECTION("well formed, with a string longer than the record") {
        rewrite(record, good, [](std::string &r) { replace_first(r, "\nmodule 1:m\n", "\nmodule 99999:m\n"); });
    }
    SECTION("well formed, with bytes after its end") {
        rewrite(record, good, [](std::string &r) { r += "compiled 1:m\n"; });
    }
    SECTION("well formed, of other shapes") {
        for (const char *body :
             {"[]", "{\"format\": 3, \"module\": \"m\", \"target\": \"cpu\"}", "weft-warm-record 3\n",
              "weft-warm-record 4\n", "weft-warm-record 99999999999999999999999\n", "weft-warm-record 4\nmodule 1:m",
              "weft-warm-record 4\nmodule 1:m\ntarget cpu\noptions 0:\nplugins 0\ntypes 0\nend\n", "null"}) {
            write(record, "weft-key v1 " + sha256_hex(body) + "\n" + body);
            const Outcome o = load_fresh(dir.path, "m", scale_source("3.0"));
            CHECK(o.warm_hits == 0);
            CHECK(o.result == 6.0f);
            write(record, "weft-key v1 " + sha256_hex(body) + "\n" + body); // the load rewrote it
        }
    }
    const Outcome o = load_fresh(dir.path, "m", scale_source("3.0"));
    CHECK(o.warm_hits == 0);
    CHECK(o.compiles == 0); // the artifact is found by the full hash
    CHECK(o.result == 6.0f);
    if (fs::is_regular_file(fs::symlink_status(record))) {
        // Replaced by the load: the next one is warm again.
        const Outcome again = load_fresh(dir.path, "m", scale_source("3.0"));
        CHECK(again.warm_hits == 1);
        CHECK(again.result == 6.0f);
    }
}

TEST_CASE("warm records published by concurrent processes are read whole") {
    TempDir dir("warm_concurrent");
    const ArtifactCache cache(dir.path);
    const std::string key(64, 'b');
    auto record_of = [](int writer, int i) {
        return "{\"writer\": " + std::to_string(writer) + ", \"i\": " + std::to_string(i) + ", \"pad\": \"" +
               std::string(std::size_t(20000 + 997 * writer), 'x') + "\"}";
    };
    std::vector<pid_t> children;
    for (int w = 0; w < 3; ++w) {
        const pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            for (int i = 0; i < 200; ++i) cache.store_key(key, record_of(w, i));
            std::_Exit(0);
        }
        children.push_back(pid);
    }
    int seen = 0, torn = 0;
    for (int i = 0; i < 400; ++i) {
        if (std::optional<std::string> r = cache.find_key(key)) {
            ++seen;
            if (r->rfind("{\"writer\": ", 0) != 0 || r->back() != '}') ++torn;
        }
    }
    for (pid_t pid : children) {
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
    CHECK(torn == 0);
    CHECK(cache.find_key(key).has_value());
    CHECK(seen >= 0);
    // No staging file is left behind.
    std::size_t files = 0;
    for (const auto &e : fs::directory_iterator(dir.path / "v1" / "keys")) files += e.is_regular_file() ? 1 : 0;
    CHECK(files == 1);
}

TEST_CASE("the registry's contract digest follows its registrations") {
    Registry a, b;
    register_core_builtins(a);
    register_core_builtins(b);
    CHECK(a.contract_digest() == b.contract_digest());
    auto add = [](Registry &r, const std::string &owner, const std::string &result) {
        auto tx = r.begin(owner);
        tx.add_builtin(BuiltinSpec{"app_f", {{"x", "float32"}}, result, "app::f", "", {}});
        tx.commit();
    };
    const std::string core = a.contract_digest();
    add(a, "app", "float32");
    CHECK(a.contract_digest() != core);
    add(b, "app", "float64"); // another result type: another contract
    CHECK(b.contract_digest() != core);
    CHECK(a.contract_digest() != b.contract_digest());
    Registry c;
    register_core_builtins(c);
    add(c, "other", "float32"); // the same overload from another owner
    CHECK(c.contract_digest() != a.contract_digest());
    a.clear();
    CHECK(a.contract_digest() != core);
    // An overload added to a name core registered changes it too.
    Registry d;
    register_core_builtins(d);
    REQUIRE(d.has_builtin("min"));
    auto tx = d.begin("app");
    tx.add_builtin(BuiltinSpec{"min", {{"a", "float32"}, {"b", "float32"}, {"c", "float32"}, {"e", "float32"}}, "float32",
                               "app::min4", "", {}});
    tx.commit();
    CHECK(d.contract_digest() != core);
}

TEST_CASE("deferred core builtins do not change the contract digest, and computing it does not register them") {
    Registry eager;
    register_core_builtins(eager);
    Registry deferred;
    deferred.defer_core_builtins();
    const std::string before = deferred.contract_digest();
    CHECK(before == eager.contract_digest());
    CHECK(before != Registry().contract_digest()); // no core builtins: another contract
    // Registered now, by the count: the digest is the same.
    CHECK(deferred.builtin_count() == eager.builtin_count());
    CHECK(deferred.contract_digest() == before);
    // A plugin's overload on a core name, registered after deferral, counts as on the eager registry.
    for (Registry *r : {&eager, &deferred}) {
        auto tx = r->begin("app");
        tx.add_builtin(BuiltinSpec{"min", {{"a", "int8"}, {"b", "int8"}, {"c", "int8"}}, "int8", "app::min3", "", {}});
        tx.commit();
    }
    CHECK(deferred.contract_digest() == eager.contract_digest());
    CHECK(deferred.contract_digest() != before);
}

TEST_CASE("the contract digest, computed while another thread registers the deferred core builtins, is the eager one") {
    Registry eager;
    register_core_builtins(eager);
    const std::string want = eager.contract_digest();
    for (int round = 0; round < 20; ++round) {
        Registry r;
        r.defer_core_builtins();
        std::vector<std::string> seen(3);
        std::vector<std::thread> threads;
        threads.emplace_back([&] { (void)r.overloads("add"); }); // registers them
        for (std::size_t i = 0; i < seen.size(); ++i) threads.emplace_back([&, i] { seen[i] = r.contract_digest(); });
        for (std::thread &t : threads) t.join();
        for (const std::string &d : seen) CHECK(d == want);
    }
}

TEST_CASE("cache verify checks the warm records") {
    require_build_id();
    TempDir dir("warm_verify");
    REQUIRE(load_fresh(dir.path, "m", scale_source("3.0")).compiles == 1);
    const ArtifactCache cache(dir.path);
    CHECK(cache.verify(false).findings.empty());
    const std::vector<fs::path> records = key_records(dir.path);
    REQUIRE(records.size() == 1);
    const std::string good = read(records.front());
    write(records.front(), good.substr(0, good.size() - 3));
    write(dir.path / "v1" / "keys" / "stray.txt", "x");
    const CacheReport seen = cache.verify(false);
    REQUIRE(seen.findings.size() == 2);
    CHECK(fs::exists(records.front()));
    const CacheReport repaired = cache.verify(true);
    REQUIRE(repaired.findings.size() == 2);
    for (const CacheFinding &f : repaired.findings) CHECK(f.action == CacheFinding::Action::Removed);
    CHECK_FALSE(fs::exists(records.front()));
    CHECK(cache.verify(false).findings.empty());
    // The next load writes the record again; the one after it is warm.
    CHECK(load_fresh(dir.path, "m", scale_source("3.0")).warm_hits == 0);
    CHECK(load_fresh(dir.path, "m", scale_source("3.0")).warm_hits == 1);
}

TEST_CASE("a warm record's text keeps every field and type kind, and any string") {
    const Type f32v = Type::scalar(Scalar::Float32);
    const Type native = Type::native("geo::Color", "nt0123456789abcdef", 12, 4);
    const Type point = Type::structure(StructLayout::make("Point", {{"p", Type::vector(Scalar::Float64, 3), 0},
                                                                    {"c", native, 0},
                                                                    {"t", Type::transform(Scalar::Float32), 0}}));
    const std::vector<Type> kinds{f32v,
                                  Type::scalar(Scalar::Int64),
                                  Type::vector(Scalar::Float16, 4),
                                  Type::matrix(Scalar::Float32, 2, 5),
                                  Type::quaternion(Scalar::Float64),
                                  Type::transform(Scalar::Float32),
                                  native,
                                  Type::array(f32v, 3),
                                  Type::indexed_array(Type::vector(Scalar::Float32, 3), 2),
                                  Type::array(point, 1),
                                  point,
                                  Type::tuple({f32v, native, Type::tuple({})})};
    pipeline::WarmRecord r;
    r.module = "m";
    r.target = Target::cpu();
    r.options_digest = std::string(64, 'c');
    r.plugins = {"geo", "noise"};
    pipeline::WarmRecord::Compiled c;
    c.module = "m";
    c.hash = std::string(64, 'e');
    codegen::KernelEntry k;
    k.name = "every_kind";
    k.key = "a key with spaces,\nnewlines and 3:colons"; // length-prefixed: nothing is escaped
    k.symbol = "wk10every_kind_cpu";
    k.tid_dims = 3;
    k.strided_section = 7;
    k.abi = kernel::ir::EntryPointAbi::ExternalConstantParams;
    for (std::size_t i = 0; i < kinds.size(); ++i) k.params.push_back({"p" + std::to_string(i), kinds[i]});
    k.params.push_back({"again", native}); // a repeated type is written once
    c.kernels.push_back(k);
    codegen::KernelEntry none;
    none.name = "no_params";
    none.symbol = "wk9no_params_cpu";
    c.kernels.push_back(none);
    r.modules.push_back(c);
    pipeline::WarmRecord::Compiled unique = c;
    unique.module = "m__unique_3";
    unique.hash = std::string(64, 'f');
    unique.kernels.resize(1);
    r.modules.push_back(unique);

    const std::string text = r.serialize();
    CHECK(text.find("types " + std::to_string(kinds.size()) + "\n") != std::string::npos);
    const pipeline::WarmRecord back = pipeline::WarmRecord::parse(text);
    CHECK(back.module == "m");
    CHECK(back.target == Target::cpu());
    CHECK(back.options_digest == r.options_digest);
    CHECK(back.plugins == r.plugins);
    REQUIRE(back.modules.size() == 2);
    CHECK(back.modules[1].module == "m__unique_3");
    CHECK(back.modules[1].hash == std::string(64, 'f'));
    REQUIRE(back.modules[0].kernels.size() == 2);
    const codegen::KernelEntry &e = back.modules[0].kernels[0];
    CHECK(e.name == "every_kind");
    CHECK(e.key == k.key);
    CHECK(e.symbol == k.symbol);
    CHECK(e.tid_dims == 3);
    CHECK(e.strided_section == 7);
    CHECK(e.abi == kernel::ir::EntryPointAbi::ExternalConstantParams);
    REQUIRE(e.params.size() == k.params.size());
    for (std::size_t i = 0; i < k.params.size(); ++i) {
        INFO(k.params[i].type.code());
        CHECK(e.params[i].name == k.params[i].name);
        CHECK(e.params[i].type == k.params[i].type);
        CHECK(e.params[i].type.name() == k.params[i].type.name());
        CHECK(e.params[i].type.size() == k.params[i].type.size());
        CHECK(e.params[i].type.alignment() == k.params[i].type.alignment());
    }
    CHECK(e.params[6].type.native_name() == "geo::Color");
    CHECK(back.modules[0].kernels[1].params.empty());
    CHECK(back.serialize() == text);

    // Every prefix of the record is refused (never read past its end).
    for (std::size_t n = 0; n < text.size(); ++n) CHECK_THROWS_AS(pipeline::WarmRecord::parse(text.substr(0, n)), UserError);
}
