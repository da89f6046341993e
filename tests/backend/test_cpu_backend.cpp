// CPU backend: in-process Clang -> ELF object -> ORC LLJIT.
#include "weft/backend/cpu_compiler.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <fstream>
#include <thread>
#include <unistd.h>

using namespace weft::backend;
namespace fs = std::filesystem;

namespace {

struct TempDir {
    fs::path path;
    explicit TempDir(const std::string &name)
        : path(fs::temp_directory_path() / ("weft_cpu_backend_" + name + "_" + std::to_string(::getpid()))) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

void write_file(const fs::path &p, std::string_view text) {
    std::ofstream out(p, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

std::string read_file(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::unique_ptr<JitModule> compile_and_load(std::string_view source, const CpuCompileOptions &options = {},
                                            const std::string &name = "test") {
    return CpuJit::instance().load(compile_to_object(source, options), name);
}

// A header of inline math, ~300 lines (what a weft runtime header looks like).
std::string math_header() {
    std::string h = "#pragma once\n#include <cmath>\n#include <cstdint>\nnamespace wm {\n"
                    "struct vec3 { float x, y, z; };\n"
                    "inline vec3 operator+(vec3 a, vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }\n"
                    "inline vec3 operator*(vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }\n"
                    "inline float dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }\n"
                    "inline float length(vec3 a) { return std::sqrt(dot(a, a)); }\n";
    for (int i = 0; i < 96; ++i) {
        const std::string n = std::to_string(i);
        h += "inline float poly" + n + "(float x) {\n";
        h += "    return ((x * " + n + ".5f + 1.0f) * x + std::sin(x * " + n + ".0f)) / (1.0f + x * x);\n";
        h += "}\n";
    }
    h += "} // namespace wm\n";
    return h;
}

const char *const math_user = R"(
extern "C" float use_math(float x) {
    wm::vec3 v{x, 2.0f * x, 3.0f};
    float s = wm::length(v + v * 0.5f);
    s += wm::poly0(x) + wm::poly1(x) + wm::poly95(x);
    return s;
}
)";

} // namespace

TEST_CASE("compile, load and call an extern \"C\" function") {
    auto module = compile_and_load(R"(extern "C" int add3(int a, int b, int c) { return a + b + c; })");
    auto add3 = module->lookup_function<int(int, int, int)>("add3");
    CHECK(add3(1, 2, 3) == 6);
    CHECK(add3(-10, 4, 100) == 94);
}

TEST_CASE("every optimization level gives the same results") {
    const char *src = R"(
        extern "C" long sum_to(long n) { long s = 0; for (long i = 1; i <= n; ++i) s += i * i; return s; })";
    for (int level = 0; level <= 3; ++level) {
        CpuCompileOptions o;
        o.opt_level = level;
        auto module = compile_and_load(src, o);
        CHECK(module->lookup_function<long(long)>("sum_to")(100) == 338350);
    }
    CpuCompileOptions bad;
    bad.opt_level = 4;
    CHECK_THROWS_AS(compile_to_object("int x;", bad), std::invalid_argument);
}

TEST_CASE("libm and libc resolve from the process") {
    auto module = compile_and_load(R"(
        #include <cmath>
        #include <cstring>
        extern "C" double f(double x) { return __builtin_sin(x); }
        extern "C" float g(float x) { return std::sqrt(x) + std::exp(0.0f); }
        extern "C" unsigned long len(const char *s) { return std::strlen(s); })");
    CHECK(module->lookup_function<double(double)>("f")(1.0) == Approx(std::sin(1.0)));
    CHECK(module->lookup_function<float(float)>("g")(16.0f) == Approx(5.0f));
    CHECK(module->lookup_function<unsigned long(const char *)>("len")("weft") == 4);
}

TEST_CASE("host symbols defined for the JIT resolve in later modules") {
    static int host_value = 0;
    struct Host {
        static int twice(int x) { return 2 * x + host_value; }
    };
    host_value = 5;
    CpuJit::instance().define_host_symbols({{"weft_test_host_twice", reinterpret_cast<void *>(&Host::twice)},
                                            {"weft_test_host_value", &host_value}});
    auto module = compile_and_load(R"(
        extern "C" int weft_test_host_twice(int);
        extern "C" int weft_test_host_value;
        extern "C" int call_host(int x) { return weft_test_host_twice(x) + weft_test_host_value; })");
    CHECK(module->lookup_function<int(int)>("call_host")(10) == 30);
    CHECK_THROWS_AS(CpuJit::instance().define_host_symbols({{"weft_test_host_value", &host_value}}), BackendError);
}

TEST_CASE("static constructors run at load, destructors at unload") {
    static int counter = 0;
    CpuJit::instance().define_host_symbols({{"weft_test_static_counter", &counter}});
    auto module = compile_and_load(R"(
        extern "C" int weft_test_static_counter;
        struct Counter {
            Counter() { weft_test_static_counter += 1; }
            ~Counter() { weft_test_static_counter += 100; }
        };
        static Counter counter;
        extern "C" int read_counter() { return weft_test_static_counter; })");
    CHECK(counter == 1);
    CHECK(module->lookup_function<int()>("read_counter")() == 1);
    module.reset();
    CHECK(counter == 101);
}

TEST_CASE("a missing symbol, a bad object and an unresolved reference are errors") {
    auto module = compile_and_load(R"(extern "C" int one() { return 1; })", {}, "lookup_test");
    CHECK_THROWS_WITH(module->lookup("two"), Catch::Contains("lookup_test") && Catch::Contains("'two'"));

    CHECK_THROWS_AS(CpuJit::instance().load(std::vector<char>{'n', 'o', 't', ' ', 'e', 'l', 'f'}, "garbage"),
                    BackendError);

    auto object = compile_to_object(R"(extern "C" int weft_no_such_function_anywhere(int);
        extern "C" int caller() { return weft_no_such_function_anywhere(1); })",
                                    {});
    CHECK_THROWS_WITH(CpuJit::instance().load(object, "unresolved"),
                      Catch::Contains("unresolved") && Catch::Contains("weft_no_such_function_anywhere"));
}

TEST_CASE("errors point at #line locations and list file:line:col") {
    const std::string src = "extern \"C\" int fine() { return 1; }\n"
                            "#line 7 \"kernel.py\"\n"
                            "extern \"C\" int broken( { return 2; }\n";
    CpuCompileOptions o;
    o.source_name = "my_module.cpp";
    try {
        compile_to_object(src, o);
        FAIL("no CompileError");
    } catch (const CompileError &e) {
        const std::string what = e.what();
        INFO(what);
        CHECK(what.find("kernel.py:7:") != std::string::npos);
        CHECK(what.find("error:") != std::string::npos);
        CHECK(what.find("fine()") == std::string::npos); // never the source
        REQUIRE(!e.diagnostics().empty());
        const CpuDiagnostic &first = e.diagnostics().front();
        CHECK(first.severity == CpuDiagnostic::Severity::Error);
        CHECK(first.file == "kernel.py");
        CHECK(first.line == 7);
        CHECK(first.column > 0);
    }

    // Without #line: the source name.
    try {
        compile_to_object("int x = ;\n", o);
        FAIL("no CompileError");
    } catch (const CompileError &e) {
        CHECK_THAT(e.what(), Catch::StartsWith("my_module.cpp:1:9: error: expected expression"));
    }
}

TEST_CASE("notes follow their error and the error list is capped") {
    try {
        compile_to_object("void f(int);\nvoid f(double);\nvoid g() { f(nullptr); }\n", {});
        FAIL("no CompileError");
    } catch (const CompileError &e) {
        const std::string what = e.what();
        INFO(what);
        CHECK(what.find("module.cpp:3:") != std::string::npos);
        CHECK(what.find("note:") != std::string::npos);
    }
    std::string many;
    for (int i = 0; i < 40; ++i) many += "int e" + std::to_string(i) + " = undefined_" + std::to_string(i) + ";\n";
    try {
        compile_to_object(many, {});
        FAIL("no CompileError");
    } catch (const CompileError &e) {
        const std::string what = e.what();
        INFO(what);
        std::size_t error_lines = 0;
        for (std::size_t p = 0; (p = what.find("error: ", p)) != std::string::npos; ++p) ++error_lines;
        // Clang stops after 20 errors with a fatal one; at most 20 are listed.
        CHECK(error_lines == 20);
        CHECK(what.find("module.cpp:1:10: error: use of undeclared identifier 'undefined_0'") == 0);
        CHECK(what.find("too many errors emitted") != std::string::npos);
        CHECK(e.diagnostics().size() == 20);
    }
}

TEST_CASE("warnings are reported on success") {
    std::vector<CpuDiagnostic> warnings;
    auto object = compile_to_object("\n#line 3 \"kernel.py\"\nextern \"C\" int f(int x) { if (x) return 1; }\n", {},
                                    &warnings);
    CHECK(!object.empty());
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].severity == CpuDiagnostic::Severity::Warning);
    CHECK(warnings[0].file == "kernel.py");
    CHECK(warnings[0].line == 3);
}

TEST_CASE("backend errors (inline asm) are compile errors, not an exit") {
    try {
        compile_to_object("extern \"C\" void f() {\n#line 40 \"kernel.py\"\n  asm volatile(\"not_an_instruction %eax\");\n}\n",
                          {});
        FAIL("no CompileError");
    } catch (const CompileError &e) {
        const std::string what = e.what();
        INFO(what);
        CHECK(what.find("not_an_instruction") != std::string::npos);
        CHECK(what.find("kernel.py:40:") != std::string::npos);
    }
}

TEST_CASE("fast_math reaches code generation and the toolchain identity") {
    const char *src = R"(extern "C" int is_nan(double x) { return x != x; })";
    CpuCompileOptions strict, fast;
    fast.fast_math = true;
    auto precise = compile_and_load(src, strict);
    auto relaxed = compile_and_load(src, fast);
    CHECK(precise->lookup_function<int(double)>("is_nan")(std::nan("")) == 1);
    CHECK(relaxed->lookup_function<int(double)>("is_nan")(std::nan("")) == 0); // -ffinite-math-only folds it

    const std::string id = toolchain_identity(strict);
    CHECK_THAT(id, Catch::StartsWith("clang 19."));
    CHECK_THAT(id, Catch::Contains("-march=x86-64") && Catch::Contains("-O2"));
    // Every flag that shapes the code, as the compiler gets them; not the driver's path.
    CHECK_THAT(id, Catch::EndsWith(") x86_64-pc-linux-gnu -std=c++17 -O2 -fno-exceptions -fno-rtti -fno-finite-loops "
                                   "-fPIC -march=x86-64"));
    CHECK(id.find("-ffast-math") == std::string::npos);
    CHECK_THAT(toolchain_identity(fast), Catch::Contains("-ffast-math"));
    CpuCompileOptions o3;
    o3.opt_level = 3;
    CHECK(toolchain_identity(o3) != id);
    CHECK_THAT(toolchain_identity(o3), Catch::Contains("-O3"));
    CpuCompileOptions native;
    native.native_cpu = true;
    const std::string native_id = toolchain_identity(native);
    CHECK_THAT(native_id, Catch::Contains("-march=native") && Catch::Contains(" cpu=") && Catch::Contains("features=+"));
    // Paths and defines are not the toolchain's business.
    CpuCompileOptions with_paths;
    with_paths.include_dirs = {"/nowhere"};
    with_paths.defines = {"X=1"};
    CHECK(toolchain_identity(with_paths) == id);
    CHECK(toolchain_identity(strict) == id); // stable
}

TEST_CASE("native CPU code runs") {
    CpuCompileOptions o;
    o.native_cpu = true;
    o.opt_level = 3;
    auto module = compile_and_load(R"(
        extern "C" float dot(const float *a, const float *b, int n) {
            float s = 0; for (int i = 0; i < n; ++i) s += a[i] * b[i]; return s; })",
                                   o);
    std::vector<float> a(1000, 2.0f), b(1000, 0.5f);
    CHECK(module->lookup_function<float(const float *, const float *, int)>("dot")(a.data(), b.data(), 1000) ==
          Approx(1000.0f));
}

TEST_CASE("include dirs: weft's first, then the others, and defines") {
    TempDir weft_dir("weft_inc"), plugin_dir("plugin_inc");
    write_file(weft_dir.path / "which.h", "#define WHICH 1\n");
    write_file(plugin_dir.path / "which.h", "#define WHICH 2\n");
    write_file(plugin_dir.path / "plugin_only.h", "inline int plugin_value() { return 42; }\n");
    CpuCompileOptions o;
    o.weft_include_dirs = {weft_dir.path};
    o.include_dirs = {plugin_dir.path};
    o.defines = {"EXTRA=7", "FLAG"};
    auto module = compile_and_load(R"(
        #include "which.h"
        #include <plugin_only.h>
        #ifndef FLAG
        #error FLAG missing
        #endif
        extern "C" int value() { return WHICH * 1000 + plugin_value() + EXTRA; })",
                                   o);
    CHECK(module->lookup_function<int()>("value")() == 1049);

    CpuCompileOptions none;
    CHECK_THROWS_WITH(compile_to_object("#include <plugin_only.h>\n", none),
                      Catch::Contains("module.cpp:1:10: error: 'plugin_only.h' file not found"));
}

TEST_CASE("unloading frees the module: 200 loads and unloads") {
    const auto object = compile_to_object(R"(
        static int table[4096] = {1};
        extern "C" int get(int i) { table[i] += i; return table[i]; })",
                                          {});
    for (int i = 0; i < 200; ++i) {
        auto module = CpuJit::instance().load(object, "loop");
        auto get = module->lookup_function<int(int)>("get");
        REQUIRE(get(0) == 1); // fresh data every time
        REQUIRE(get(3) == 3);
    }
}

TEST_CASE("two threads compile and load at once") {
    std::atomic<int> results[2] = {0, 0};
    std::string errors[2];
    auto work = [&](int t) {
        try {
            for (int round = 0; round < 3; ++round) {
                const std::string fn = "thread_fn_" + std::to_string(t);
                const std::string src = "#include <cmath>\nextern \"C\" int " + fn + "(int x) { return x * " +
                                        std::to_string(t + 2) + " + int(std::sqrt(16.0)); }\n";
                CpuCompileOptions o;
                o.opt_level = t == 0 ? 2 : 1;
                auto module = CpuJit::instance().load(compile_to_object(src, o), fn);
                results[t] += module->lookup_function<int(int)>(fn)(10);
            }
        } catch (const std::exception &e) {
            errors[t] = e.what();
        }
    };
    std::thread a(work, 0), b(work, 1);
    a.join();
    b.join();
    CHECK(errors[0].empty());
    CHECK(errors[1].empty());
    CHECK(results[0] == 3 * 24);
    CHECK(results[1] == 3 * 34);
}

TEST_CASE("a PCH gives the same result as the header text") {
    TempDir dir("pch");
    const std::string header = math_header();
    const fs::path pch = dir.path / "math.pch";
    CpuCompileOptions o;
    build_pch(header, o, pch);
    REQUIRE(fs::file_size(pch) > 10000);

    auto plain = compile_and_load(header + math_user, o, "plain");
    CpuCompileOptions with_pch = o;
    with_pch.pch = pch;
    auto precompiled = compile_and_load(math_user, with_pch, "precompiled");
    const float x = 0.75f;
    CHECK(precompiled->lookup_function<float(float)>("use_math")(x) == plain->lookup_function<float(float)>("use_math")(x));

    // Errors in the user TU still point at it, and are not the PCH's fault.
    try {
        compile_to_object("extern \"C\" float h(float x) { return wm::nope(x); }\n", with_pch);
        FAIL("no CompileError");
    } catch (const CompileError &e) {
        CHECK_THAT(e.what(), Catch::StartsWith("module.cpp:1:") && Catch::Contains("nope"));
        CHECK(!e.pch_rejected());
    }
    // Errors in the header point at the header.
    CHECK_THROWS_WITH(build_pch("#pragma once\ninline int broken( {\n", o, dir.path / "broken.pch"),
                      Catch::Contains("module.pch.hpp:2:"));
    CHECK(!fs::exists(dir.path / "broken.pch"));
}

namespace {
// The CompileError of compiling math_user with `options`; fails the test when it compiles.
CompileError compile_error_of(const CpuCompileOptions &options) {
    try {
        compile_to_object(math_user, options);
    } catch (const CompileError &e) {
        return e;
    }
    FAIL("compiled, expected a CompileError");
    throw std::logic_error("unreachable");
}
} // namespace

TEST_CASE("a PCH built with other flags, a garbage PCH and a truncated PCH are clear errors") {
    TempDir dir("bad_pch");
    const fs::path pch = dir.path / "math.pch";
    CpuCompileOptions o;
    build_pch(math_header(), o, pch);

    SECTION("other flags") {
        CpuCompileOptions mismatched;
        mismatched.fast_math = true;
        mismatched.pch = pch;
        const CompileError e = compile_error_of(mismatched);
        INFO(e.what());
        CHECK(e.pch_rejected());
        CHECK_THAT(e.what(), Catch::Contains("math.pch"));
    }
    SECTION("garbage") {
        const fs::path garbage = dir.path / "garbage.pch";
        write_file(garbage, "this is not a precompiled header at all");
        CpuCompileOptions g;
        g.pch = garbage;
        const CompileError e = compile_error_of(g);
        INFO(e.what());
        CHECK(e.pch_rejected());
        CHECK_THAT(e.what(), Catch::Contains("garbage.pch") && Catch::Contains("error:"));
    }
    SECTION("truncated") {
        const fs::path truncated = dir.path / "truncated.pch";
        const std::string bytes = read_file(pch);
        write_file(truncated, std::string_view(bytes).substr(0, bytes.size() / 2));
        CpuCompileOptions t;
        t.pch = truncated;
        const CompileError e = compile_error_of(t);
        INFO(e.what());
        CHECK(e.pch_rejected());
    }
    SECTION("missing") {
        CpuCompileOptions missing;
        missing.pch = dir.path / "missing.pch";
        const CompileError e = compile_error_of(missing);
        INFO(e.what());
        CHECK(e.pch_rejected());
        CHECK_THAT(e.what(), Catch::Contains("missing.pch"));
    }
}

TEST_CASE("a PCH whose header on disk changed is rejected") {
    TempDir dir("stale_pch");
    write_file(dir.path / "runtime.h", "inline int runtime_value() { return 1; }\n");
    CpuCompileOptions o;
    o.weft_include_dirs = {dir.path};
    o.pch = dir.path / "runtime.pch";
    build_pch("#include <runtime.h>\n", o, o.pch);
    const char *user = "extern \"C\" int value() { return runtime_value(); }\n";
    CHECK(CpuJit::instance().load(compile_to_object(user, o), "fresh")->lookup_function<int()>("value")() == 1);

    write_file(dir.path / "runtime.h", "inline int runtime_value() { return 22; }\n");
    try {
        compile_to_object(user, o);
        FAIL("the stale PCH was used");
    } catch (const CompileError &e) {
        INFO(e.what());
        CHECK(e.pch_rejected());
        CHECK_THAT(e.what(), Catch::Contains("runtime.h"));
    }
    build_pch("#include <runtime.h>\n", o, o.pch); // the caller's remedy: rebuild
    CHECK(CpuJit::instance().load(compile_to_object(user, o), "rebuilt")->lookup_function<int()>("value")() == 22);
}

// A module split the way codegen splits one into compile units: shared code
// in every unit, globals defined by one, each unit's own entry points (here
// one text, a unit selected by WEFT_PART).
constexpr const char *parted_source = R"(
#ifndef WEFT_PART
#define WEFT_PART 0
#endif
extern "C" int weft_test_parts_ctor_runs;
template <class T> T twice(T x) { return x + x; } // weak: defined by every part that uses it
extern "C" int shared_counter;
#if WEFT_PART <= 1
extern "C" int shared_counter = 0;
#endif
struct Bump {
    int by;
    Bump(int b) : by(b) { weft_test_parts_ctor_runs += b; }
    ~Bump() { weft_test_parts_ctor_runs += 100 * by; } // each part's __dso_handle registers its own
};
#if WEFT_PART == 0 || WEFT_PART == 1
static Bump bump1(1);
extern "C" int first(int x) { ++shared_counter; return twice(x) + 1; }
#endif
#if WEFT_PART == 0 || WEFT_PART == 2
static Bump bump2(10);
extern "C" int second(int x) { ++shared_counter; return twice(x) + 2; }
#endif
#if WEFT_PART == 0 || WEFT_PART == 3
extern "C" int third(int x) { ++shared_counter; return twice(x) * 3; }
extern "C" int counted() { return shared_counter; }
#endif
)";

/// Parts 1..n of parted_source, each compiled as a unit of its own with the
/// part number `first_id + k` naming its static initializer, bundled in the
/// order `order` gives (part numbers, 1-based).
std::vector<char> compile_parts(const std::vector<int> &order, int first_id = 1000000) {
    std::vector<std::vector<char>> objects;
    for (int k : order) {
        CpuCompileOptions o;
        o.defines = {"WEFT_PART=" + std::to_string(k)};
        o.part = first_id + k;
        objects.push_back(compile_to_object(parted_source, o));
    }
    return bundle_objects(objects);
}

TEST_CASE("a module compiled as units links as one module: shared globals, weak code, every unit's constructors") {
    static int ctor_runs = 0;
    CpuJit::instance().define_host_symbols({{"weft_test_parts_ctor_runs", &ctor_runs}});
    // In any order: each object's initializer is found by its name, not its place.
    for (const std::vector<int> &order : {std::vector<int>{1, 2, 3}, std::vector<int>{3, 1, 2}}) {
        ctor_runs = 0;
        const std::vector<char> bundle = compile_parts(order);
        REQUIRE(is_object_bundle(std::string_view(bundle.data(), bundle.size())));
        CHECK(unbundle_objects(bundle).size() == 3);
        auto module = CpuJit::instance().load(bundle, "parted");
        CHECK(ctor_runs == 11); // units 1 and 2 each ran their own
        CHECK(module->lookup_function<int(int)>("first")(5) == 11);
        CHECK(module->lookup_function<int(int)>("second")(5) == 12);
        CHECK(module->lookup_function<int(int)>("third")(5) == 30);
        CHECK(module->lookup_function<int()>("counted")() == 3); // one counter, defined by unit 1
        module.reset();
        CHECK(ctor_runs == 11 + 1100); // both units' static destructors ran at unload
    }

    // The same source as one unit gives the same results.
    ctor_runs = 0;
    auto whole = CpuJit::instance().load(compile_to_object(parted_source, {}), "whole");
    CHECK(ctor_runs == 11);
    CHECK(whole->lookup_function<int(int)>("second")(5) == 12);
    whole.reset();
    CHECK(ctor_runs == 11 + 1100);

    // Deterministic: the same units give the same bytes.
    CHECK(compile_parts({1, 2, 3}) == compile_parts({1, 2, 3}));
    // A unit's part number comes from its key's first 8 hex digits.
    CHECK(unit_part("00000000ffff") == 1000000);
    CHECK(unit_part("0000000aff") == 1000010);
    CHECK(unit_part("ffffffff") == 1000000 + static_cast<int>(0xffffffffu % 1000000000u));
}

TEST_CASE("object bundles: a single object stays itself, and damaged bundles are clear errors") {
    const std::vector<char> object = compile_to_object(R"(extern "C" int one() { return 1; })", {});
    CHECK(bundle_objects({object}) == object);
    CHECK(unbundle_objects(object) == std::vector<std::vector<char>>{object});

    const std::vector<char> bundle = compile_parts({1, 2});
    std::vector<char> cut(bundle.begin(), bundle.begin() + static_cast<std::ptrdiff_t>(bundle.size() / 2));
    CHECK_THROWS_WITH(unbundle_objects(cut), Catch::Contains("malformed object bundle"));
    CHECK_THROWS_WITH(CpuJit::instance().load(cut, "cut"), Catch::Contains("malformed object bundle"));

    const std::vector<char> not_objects = bundle_objects({std::vector<char>{'a', 'b', 'c', 'd'}, std::vector<char>{'e'}});
    CHECK_THROWS_WITH(unbundle_objects(not_objects), Catch::Contains("member 1 is not an ELF object"));

    std::vector<char> lonely = bundle_objects({object, object});
    CHECK_THROWS_WITH(CpuJit::instance().load(lonely, "twice"), Catch::Contains("twice")); // one() defined twice
    CHECK_THROWS_AS(bundle_objects(std::vector<std::vector<char>>(max_bundled_objects + 1, object)),
                    std::invalid_argument);
}
