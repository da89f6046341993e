// One file of the kernel corpus or error suite, as one CTest entry.
//   kernel_suite corpus FILE.py  exit 0 iff FILE checks without errors and its
//                                lowered IR passes the verifier.
//   kernel_suite compile FILE.py  exit 0 iff FILE compiles and loads on the CPU
//                                (a fresh cache in WEFT_CACHE_DIR or a temp dir).
//   kernel_suite cuda FILE.py     exit 0 iff FILE compiles with NVRTC to PTX for
//                                compute_90 and to CUBIN for sm_90 and sm_80,
//                                its backward pass (every kernel's adjoint entry) too.
//   kernel_suite backward FILE.py exit 0 iff FILE's backward pass compiles and
//                                loads on the CPU (every differentiable kernel).
//   kernel_suite ir FILE.py GOLDEN  exit 0 iff the lowered IR printed equals
//                                the GOLDEN file (WEFT_UPDATE_GOLDEN=1 rewrites it).
//   kernel_suite errors FILE.py  exit 0 iff FILE has `# expect: LINE:COL: fragment`
//                                lines, each matched by an error at exactly
//                                LINE:COL whose message contains the fragment,
//                                and every error matches some expectation.
// Warnings are ignored. A file may name the test plugins it needs:
// `# plugins: wt_color wt_pixel`.
#include "corpus_runs.hpp"
#include "weft/host/host.hpp"
#include "weft/kernel/frontend.hpp"
#include "weft/kernel/lower.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

using namespace weft;
using namespace weft::kernel;

namespace {

struct Expectation {
    std::uint32_t line = 0, column = 0;
    std::string fragment;
};

std::string describe(const Expectation &e) {
    return std::to_string(e.line) + ":" + std::to_string(e.column) + ": " + e.fragment;
}

std::string describe(const Diagnostic &d) {
    return std::to_string(d.location.line) + ":" + std::to_string(d.location.column) + ": " + d.message;
}

bool matches(const Diagnostic &d, const Expectation &e) {
    return d.severity == Diagnostic::Severity::Error && d.location.line == e.line && d.location.column == e.column &&
           d.text().find(e.fragment) != std::string::npos;
}

/// The text after `tag` on every line that starts with it.
std::vector<std::string> tagged(const std::string &path, const std::string &tag) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);)
        if (line.rfind(tag, 0) == 0) out.push_back(line.substr(tag.size()));
    return out;
}

/// `LINE:COL: fragment`, or throws.
Expectation parse_expectation(const std::string &text) {
    Expectation e;
    char colon1 = 0, colon2 = 0;
    std::istringstream in(text);
    in >> e.line >> colon1 >> e.column >> colon2;
    std::getline(in >> std::ws, e.fragment);
    if (colon1 != ':' || colon2 != ':' || e.line == 0 || e.fragment.empty())
        throw std::runtime_error("malformed '# expect: " + text + "' (want LINE:COL: fragment)");
    return e;
}

/// Checks `path` in a fresh host with the plugins it names.
FrontendResult check_with_plugins(const std::string &path) {
    HostOptions options;
    options.use_environment = false;
    options.search_path = {WEFT_TEST_PLUGIN_DIR};
    Host host(options);
    for (const std::string &words : tagged(path, "# plugins:")) {
        std::istringstream in(words);
        for (std::string name; in >> name;)
            if (!host.plugin(name)) host.load(std::string(WEFT_TEST_PLUGIN_DIR) + "/" + name);
    }
    return check_file(path, host.registry());
}

int run_corpus(const std::string &path) {
    FrontendResult r = check_with_plugins(path);
    if (!r.ok()) {
        std::cout << r.formatted << std::flush;
        std::cerr << path << ": expected no errors\n";
        return 1;
    }
    lower(r.module);
    const std::vector<std::string> problems = verify_lowered(r.module);
    for (const std::string &p : problems) std::cerr << path << ": lowered IR: " << p << "\n";
    return problems.empty() ? 0 : 1;
}

int run_compile(const std::string &path, bool cuda, bool backward = false) {
    HostOptions options;
    options.use_environment = false;
    options.search_path = {WEFT_TEST_PLUGIN_DIR};
    options.quiet = true;
    // A fresh cache per file, test mode and process: build trees running their
    // suites at the same time must not delete each other's caches.
    const std::filesystem::path cache = std::filesystem::temp_directory_path() /
                                        ("weft_suite_" + std::string(cuda ? "cuda_" : "") +
                                         std::filesystem::path(path).stem().string() + "_" +
                                         std::to_string(::getpid()));
    std::filesystem::remove_all(cache);
    options.cache_dir = cache;
    Host host(options);
    for (const std::string &words : tagged(path, "# plugins:")) {
        std::istringstream in(words);
        for (std::string name; in >> name;)
            if (!host.plugin(name)) host.load(std::string(WEFT_TEST_PLUGIN_DIR) + "/" + name);
    }
    try {
        if (cuda) {
            const std::vector<Target> targets{Target::cuda_ptx(90), Target::cuda_cubin(90), Target::cuda_cubin(80)};
            // One artifact per target for each module (a module="unique" kernel is one of its own).
            const std::size_t forward = host.compile_aot(path, targets).size();
            if (forward == 0 || forward % targets.size() != 0)
                throw std::runtime_error("expected 3 artifacts per module, got " + std::to_string(forward));
            if (host.compile_aot(path, targets, {}, {}, Pass::Backward).size() != forward)
                throw std::runtime_error("expected " + std::to_string(forward) + " backward artifacts");
        } else {
            CompiledModule m = host.load_module(path);
            if (backward) {
                int built = 0;
                for (const Kernel &kernel : m.kernels()) {
                    try {
                        (void)kernel.backward();
                        ++built;
                    } catch (const UserError &e) {
                        if (std::string(e.what()).find("has no backward pass") == std::string::npos) throw;
                    }
                }
                std::cout << path << ": " << built << " backward kernels\n";
            }
        }
    } catch (...) {
        std::filesystem::remove_all(cache);
        throw;
    }
    std::filesystem::remove_all(cache);
    return 0;
}

/// Every kernel of `path` on the CPU with inputs made from its signature
/// (tests/support/corpus_runs.hpp), as JSON in `out` (stdout has the kernels' prints).
int run_fed(const std::string &path, const std::string &out) {
    HostOptions options;
    options.use_environment = false;
    options.quiet = true;
    const std::filesystem::path cache =
        std::filesystem::temp_directory_path() / ("weft_suite_run_" + std::to_string(::getpid()));
    options.cache_dir = cache;
    {
        Host host(options);
        // `# plugins:` names test plugins or bundled ones (the geometry plugins' objects).
        for (const std::string &words : tagged(path, "# plugins:")) {
            std::istringstream in(words);
            for (std::string name; in >> name;) {
                if (host.plugin(name)) continue;
                const std::filesystem::path test_plugin = std::filesystem::path(WEFT_TEST_PLUGIN_DIR) / name;
                host.load(std::filesystem::exists(test_plugin) ? test_plugin
                                                               : std::filesystem::path(WEFT_BUNDLED_PLUGIN_DIR) / name);
            }
        }
        std::ofstream(out, std::ios::binary) << test::runs_to_json(test::run_module_kernels(host, path, Device::cpu()));
    }
    std::filesystem::remove_all(cache);
    return 0;
}

int run_golden(const std::string &path, const std::string &golden) {
    FrontendResult r = check_with_plugins(path);
    if (!r.ok()) {
        std::cout << r.formatted << std::flush;
        return 1;
    }
    lower(r.module);
    const std::string text = print_ir(r.module);
    if (const char *update = std::getenv("WEFT_UPDATE_GOLDEN"); update && std::string(update) == "1") {
        std::ofstream(golden, std::ios::binary) << text;
        return 0;
    }
    std::ifstream in(golden, std::ios::binary);
    std::ostringstream expected;
    expected << in.rdbuf();
    if (in && expected.str() == text) return 0;
    std::cout << text << std::flush;
    std::cerr << path << ": the lowered IR above differs from " << golden
              << " (WEFT_UPDATE_GOLDEN=1 rewrites it after a deliberate change)\n";
    return 1;
}

int run_errors(const std::string &path) {
    std::vector<Expectation> expected;
    for (const std::string &text : tagged(path, "# expect: ")) expected.push_back(parse_expectation(text));
    if (expected.empty()) {
        std::cerr << path << ": no '# expect: LINE:COL: fragment' lines\n";
        return 1;
    }
    const FrontendResult r = check_with_plugins(path);
    std::vector<std::string> failures;
    for (const Expectation &e : expected)
        if (std::none_of(r.diagnostics.begin(), r.diagnostics.end(), [&](const Diagnostic &d) { return matches(d, e); }))
            failures.push_back("missing expected error " + describe(e));
    for (const Diagnostic &d : r.diagnostics)
        if (d.severity == Diagnostic::Severity::Error &&
            std::none_of(expected.begin(), expected.end(), [&](const Expectation &e) { return matches(d, e); }))
            failures.push_back("unexpected error " + describe(d));
    if (failures.empty()) return 0;
    std::cout << r.formatted << std::flush;
    for (const std::string &f : failures) std::cerr << path << ": " << f << "\n";
    return 1;
}

} // namespace

int main(int argc, char **argv) {
    const std::string mode = argc >= 3 ? argv[1] : "";
    if (!((mode == "corpus" || mode == "errors" || mode == "compile" || mode == "cuda" || mode == "backward") && argc == 3) &&
        !((mode == "ir" || mode == "run") && argc == 4)) {
        std::cerr << "usage: kernel_suite corpus|errors|compile|backward|cuda FILE.py\n       kernel_suite ir FILE.py GOLDEN.ir\n       kernel_suite run FILE.py OUT.json\n";
        return 2;
    }
    try {
        if (mode == "ir") return run_golden(argv[2], argv[3]);
        if (mode == "run") return run_fed(argv[2], argv[3]);
        if (mode == "compile" || mode == "cuda" || mode == "backward")
            return run_compile(argv[2], mode == "cuda", mode == "backward");
        return mode == "corpus" ? run_corpus(argv[2]) : run_errors(argv[2]);
    } catch (const std::exception &e) {
        std::cerr << argv[2] << ": " << e.what() << "\n";
        return 1;
    }
}
