// Facts of the typed IR for modules of the kernel-language corpus
// (tests/kernels/corpus/). That every corpus module checks without errors, and
// that every tests/kernels/errors/ module reports exactly its expected errors,
// are CTest entries of their own: kernels.corpus.* and kernels.errors.*
// (tests/tools/kernel_suite.cpp).
// A module may name the test plugins it needs: `# plugins: wt_color wt_pixel`.
#include "test_support.hpp"

#include "weft/host/host.hpp"
#include "weft/kernel/frontend.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace weft;
using namespace weft::kernel;
namespace fs = std::filesystem;

namespace {

const fs::path kernel_dir = WEFT_KERNEL_TEST_DIR;

std::vector<std::string> lines_of(const fs::path &path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

/// The words after `# plugins:`, from any line of the file.
std::vector<std::string> plugins_of(const std::vector<std::string> &lines) {
    const std::string tag = "# plugins:";
    std::vector<std::string> names;
    for (const std::string &line : lines)
        if (line.rfind(tag, 0) == 0) {
            std::istringstream words(line.substr(tag.size()));
            for (std::string w; words >> w;) names.push_back(w);
        }
    return names;
}

/// Checks one file in a fresh host with the plugins it names.
FrontendResult check_with_plugins(const fs::path &path) {
    Host host(weft::test::test_host_options());
    for (const std::string &name : plugins_of(lines_of(path)))
        if (!host.plugin(name)) host.load(weft::test::plugin_dir(name));
    return check_file(path.string(), host.registry());
}

FrontendResult check_corpus(const std::string &name) {
    FrontendResult r = check_with_plugins(kernel_dir / "corpus" / (name + ".py"));
    INFO(r.formatted);
    REQUIRE(r.ok());
    return r;
}

const ir::Function &kernel_named(const ir::Module &m, const std::string &name) {
    const ir::Function *k = m.kernel(name);
    INFO("kernel " << name);
    REQUIRE(k);
    return *k;
}

std::vector<std::string> param_types(const ir::Function &f) {
    std::vector<std::string> out;
    for (const ir::Variable &p : f.params) out.push_back(p.type.name());
    return out;
}

} // namespace

TEST_CASE("corpus: facts of the typed IR") {
    SECTION("saxpy") {
        const FrontendResult r = check_corpus("saxpy");
        CHECK(r.module.name == "saxpy");
        CHECK(r.module.warp_alias == "wp");
        REQUIRE(r.module.functions.size() == 1);
        const ir::Function &k = kernel_named(r.module, "saxpy");
        CHECK(param_types(k) == std::vector<std::string>{"array(dtype=float32)", "array(dtype=float32)",
                                                         "array(dtype=float32)", "float32"});
        CHECK(k.tid_dims == 1);
        CHECK(k.uses_tid);
        CHECK(k.abi == ir::EntryPointAbi::Warp);
    }
    SECTION("structs") {
        const FrontendResult r = check_corpus("structs");
        std::vector<std::string> names;
        for (const ir::Struct &s : r.module.structs) names.push_back(s.name);
        CHECK(names == std::vector<std::string>{"Material", "Particle", "SimParams"});
        const ir::Function &step = kernel_named(r.module, "step_particles");
        CHECK(param_types(step) == std::vector<std::string>{"array(dtype=Particle)", "SimParams"});
        // Particle nests Material: both are referenced.
        std::vector<std::string> refs = r.module.references.structs;
        std::sort(refs.begin(), refs.end());
        CHECK(refs == names);
    }
    SECTION("stencil2d: i, j = wp.tid() over 2-D arrays") {
        const FrontendResult r = check_corpus("stencil2d");
        const ir::Function &k = kernel_named(r.module, "laplacian");
        CHECK(k.tid_dims == 2);
        CHECK(param_types(k) == std::vector<std::string>{"array(dtype=float32, ndim=2)", "array(dtype=float32, ndim=2)",
                                                         "float32"});
    }
    SECTION("overloads and generic instances get distinct mangled names") {
        for (const char *name : {"overloads", "generics"}) {
            const FrontendResult r = check_corpus(name);
            std::vector<std::string> mangled;
            for (const ir::Function &f : r.module.functions) mangled.push_back(f.mangled_name);
            std::sort(mangled.begin(), mangled.end());
            INFO(name);
            CHECK(std::adjacent_find(mangled.begin(), mangled.end()) == mangled.end());
        }
        const FrontendResult r = check_corpus("overloads");
        CHECK(std::count_if(r.module.functions.begin(), r.module.functions.end(),
                            [](const ir::Function &f) { return f.name == "magnitude"; }) == 4);
    }
    SECTION("external_abi: entry-point options") {
        const FrontendResult r = check_corpus("external_abi");
        const ir::Function &k = kernel_named(r.module, "raygen");
        CHECK(k.abi == ir::EntryPointAbi::ExternalConstantParams);
        CHECK(k.entry_name == "raygen_entry");
        CHECK_FALSE(k.enable_backward);
        CHECK(k.enable_backward_explicit);
        CHECK(kernel_named(r.module, "renamed").entry_name == "scale_by_two");
        CHECK(kernel_named(r.module, "default_abi").enable_backward);
    }
    SECTION("plugin_colors: native types and plugin builtins are referenced") {
        const FrontendResult r = check_corpus("plugin_colors");
        bool color = false;
        for (const NativeTypeInfo &t : r.module.references.native_types) color = color || t.native_name == "warp_test::Color";
        CHECK(color);
        bool scale = false, plugin_add = false;
        for (const BuiltinOverload &o : r.module.references.builtins) {
            scale = scale || o.name == "_test_native_scale";
            plugin_add = plugin_add || (o.name == "add" && o.owners == std::vector<std::string>{"wt_color"});
        }
        CHECK(scale);
        CHECK(plugin_add);
        CHECK(param_types(kernel_named(r.module, "tint")) ==
              std::vector<std::string>{"array(dtype=warp_test::Color)", "float32"});
    }
    SECTION("plugin_pixels: a native type nesting another") {
        const FrontendResult r = check_corpus("plugin_pixels");
        std::vector<std::string> types;
        for (const NativeTypeInfo &t : r.module.references.native_types) types.push_back(t.native_name);
        std::sort(types.begin(), types.end());
        CHECK(types == std::vector<std::string>{"warp_test::Color", "warp_test::Pixel"});
    }
    SECTION("constants") {
        const FrontendResult r = check_corpus("constants");
        std::vector<std::string> names;
        for (const ir::Constant &c : r.module.constants) names.push_back(c.name);
        CHECK(names == std::vector<std::string>{"N", "HALF_N", "TILE", "SCALE", "EPS", "UP", "BASIS", "MASK", "ENABLED",
                                                "INV_SQRT2"});
        for (const ir::Constant &c : r.module.constants) {
            if (c.name == "UP") CHECK(c.value.type.name() == "vec3");
            if (c.name == "HALF_N") CHECK(c.value.int_components == std::vector<ir::IntValue>{8});
        }
    }
}
