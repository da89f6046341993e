// Everything `weft check` accepts must build: mutates the plugin-free corpus
// kernels (literals, operators, builtins, lines), runs each mutant through the
// front end, and compiles every one it accepts on the CPU. A mutant the front
// end accepts and the compiler then rejects (or that crashes either) is a
// failure, printed whole. Deterministic for a given seed; bounded by time.
//
//   accepted_builds CORPUS_DIR SECONDS [SEED]
// Runs in the ordinary test build (no libFuzzer), so CI runs it.
#include "weft/host/host.hpp"
#include "weft/kernel/diagnostics.hpp"
#include "weft/kernel/frontend.hpp"
#include "weft/registry/registry.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;
using namespace weft;

namespace {

std::vector<std::string> lines_of(const std::string &text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

std::string join(const std::vector<std::string> &lines) {
    std::string out;
    for (const std::string &l : lines) out += l + "\n";
    return out;
}

/// Positions where `word` occurs as a whole token in `line`.
std::vector<std::size_t> occurrences(const std::string &line, const std::string &word) {
    std::vector<std::size_t> at;
    for (std::size_t p = line.find(word); p != std::string::npos; p = line.find(word, p + 1)) at.push_back(p);
    return at;
}

class Mutator {
public:
    explicit Mutator(unsigned seed) : rng_(seed) {}

    std::string mutate(const std::string &source) {
        std::vector<std::string> lines = lines_of(source);
        const int count = 1 + pick(3);
        for (int m = 0; m < count; ++m) {
            // Kernel bodies only: indented, not comments.
            std::vector<std::size_t> body;
            for (std::size_t i = 0; i < lines.size(); ++i)
                if (lines[i].rfind("    ", 0) == 0 && lines[i].find('#') == std::string::npos) body.push_back(i);
            if (body.empty()) break;
            std::string &line = lines[body[static_cast<std::size_t>(pick(static_cast<int>(body.size())))]];
            switch (pick(5)) {
            case 0: replace_one(line, {" + ", " - ", " * ", " / ", " // ", " % ", " ** "}); break;
            case 1: replace_one(line, {" < ", " <= ", " > ", " >= ", " == ", " != ", " and ", " or "}); break;
            case 2: replace_one(line, {"(0)", "(1)", "(2)", "(-1)", "(7)", "(255)", "(65536)", "(2147483647)", " 0", " 1", " 2",
                                       " 3", " 0.0", " 1.0", " 0.5", " 2.0", " -1.0", " 1.0e30"});
                break;
            case 3: replace_one(line, {"wp.sin(", "wp.cos(", "wp.abs(", "wp.sqrt(", "wp.floor(", "wp.exp(", "wp.log(",
                                       "wp.min(", "wp.max(", "wp.length(", "wp.normalize(", "wp.dot("});
                break;
            default: { // duplicate the line
                const std::string copy = line;
                const auto at = std::find(lines.begin(), lines.end(), copy);
                lines.insert(at, copy);
                break;
            }
            }
        }
        return join(lines);
    }

private:
    std::mt19937 rng_;
    int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

    /// Replaces one occurrence of one of `set` in `line` by another member.
    void replace_one(std::string &line, const std::vector<std::string> &set) {
        std::vector<std::pair<std::size_t, std::size_t>> found; // position, which
        for (std::size_t w = 0; w < set.size(); ++w)
            for (std::size_t p : occurrences(line, set[w])) found.emplace_back(p, w);
        if (found.empty()) return;
        const auto [pos, which] = found[static_cast<std::size_t>(pick(static_cast<int>(found.size())))];
        line.replace(pos, set[which].size(), set[static_cast<std::size_t>(pick(static_cast<int>(set.size())))]);
    }
};

} // namespace

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: accepted_builds CORPUS_DIR SECONDS [SEED]\n");
        return 2;
    }
    const fs::path corpus = argv[1];
    const double seconds = std::atof(argv[2]);
    const unsigned seed = argc > 3 ? static_cast<unsigned>(std::strtoul(argv[3], nullptr, 10)) : 20261203u;

    std::vector<std::pair<std::string, std::string>> seeds; // name, text
    for (const fs::directory_entry &e : fs::directory_iterator(corpus)) {
        if (e.path().extension() != ".py" || e.path().stem() == "external_abi") continue;
        std::ifstream in(e.path());
        std::stringstream text;
        text << in.rdbuf();
        if (text.str().find("# plugins:") != std::string::npos) continue;
        // A @wp.func_native snippet is C++ the front end passes through unchecked
        // (as Warp does): a mutated snippet is a compiler error at the snippet's
        // line, not a front-end miss (tests/unit/test_native_snippets.cpp).
        if (text.str().find("@wp.func_native") != std::string::npos) continue;
        seeds.emplace_back(e.path().stem().string(), text.str());
    }
    std::sort(seeds.begin(), seeds.end());
    if (seeds.empty()) {
        std::fprintf(stderr, "accepted_builds: no plugin-free kernels in %s\n", corpus.c_str());
        return 2;
    }

    Registry registry;
    register_core_builtins(registry);
    HostOptions options;
    options.use_environment = false;
    options.quiet = true;
    const fs::path cache = fs::temp_directory_path() / ("weft_accepted_builds_" + std::to_string(::getpid()));
    options.cache_dir = cache;
    int failures = 0;
    std::size_t mutants = 0, accepted = 0;
    {
        Host host(options);
        Mutator mutator(seed);
        const auto start = std::chrono::steady_clock::now();
        while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds && failures < 3) {
            const auto &[name, text] = seeds[mutants % seeds.size()];
            const std::string mutant = mutator.mutate(text);
            ++mutants;
            kernel::SourceFile file(name + ".py", mutant);
            if (!kernel::check_module(file, registry).ok()) continue;
            ++accepted;
            const std::string module = "m" + std::to_string(mutants);
            try {
                (void)host.load_module_source(module, mutant);
                host.unload_module(module);
            } catch (const std::exception &e) {
                ++failures;
                std::printf("FAILED: the front end accepts this mutant of %s.py, the build rejects it:\n%s\n--- "
                            "source\n%s---\n",
                            name.c_str(), e.what(), mutant.c_str());
            }
        }
    }
    fs::remove_all(cache);
    std::printf("accepted_builds: %zu mutants, %zu accepted by the front end and built, %d failed (seed %u)\n", mutants,
                accepted, failures, seed);
    return failures ? 1 : 0;
}
