// How long an application's translation unit that includes weft's umbrella
// header takes to compile (issue 37: under 1 s on the development machine),
// side by side with the same program written against the standard headers the
// API cannot avoid (<filesystem>, <functional>, <memory>, <string>, <vector>):
// the floor any C++ API taking paths and callbacks pays. Each is compiled as a
// subprocess of the compiler weft was built with, -std=c++20 -O0 -c, the two
// interleaved, `--repeat` times; medians.
//
//   bench_app_header [--repeat N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

const char *const app = R"(#include <weft/weft.hpp>

int main() {
    weft::Host host;
    weft::CompiledModule m = host.load_module("kernels.py");
    weft::Array pos = weft::Array::from_vector(std::vector<weft::vec3f>(16));
    weft::StructValue params = m.kernel("step").make_struct("params");
    params.set("dt", 0.01f);
    m.kernel("step").launch({16}, {pos, params});
    return static_cast<int>(pos.to_vector<weft::vec3f>()[0][0]);
}
)";

const char *const floor_program = R"(#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

struct Module { std::function<void(int)> launch; std::filesystem::path path; };
int main() {
    std::vector<std::shared_ptr<Module>> modules{std::make_shared<Module>()};
    modules[0]->path = "kernels.py";
    modules[0]->launch = [](int) {};
    modules[0]->launch(16);
    return static_cast<int>(modules[0]->path.string().size());
}
)";

double compile_seconds(const fs::path &source) {
    const std::string command = std::string(WEFT_BENCH_CXX) + " -std=c++20 -O0 -I" WEFT_BENCH_INCLUDE " -c " +
                                source.string() + " -o /dev/null";
    const auto t0 = std::chrono::steady_clock::now();
    if (std::system(command.c_str()) != 0) {
        std::fprintf(stderr, "bench_app_header: failed: %s\n", command.c_str());
        std::exit(1);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
    int repeat = 5;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    const fs::path dir = fs::temp_directory_path() / ("weft_bench_app_header_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "app.cpp") << app;
    std::ofstream(dir / "floor.cpp") << floor_program;
    std::vector<double> app_times, floor_times;
    for (int r = 0; r < repeat; ++r) {
        app_times.push_back(compile_seconds(dir / "app.cpp"));
        floor_times.push_back(compile_seconds(dir / "floor.cpp"));
    }
    fs::remove_all(dir);
    std::printf("compiler: %s\n", WEFT_BENCH_CXX);
    std::printf("app including weft/weft.hpp: median %.3f s (min %.3f) over %d\n", median(app_times),
                *std::min_element(app_times.begin(), app_times.end()), repeat);
    std::printf("floor (the standard headers the API takes): median %.3f s (min %.3f)\n", median(floor_times),
                *std::min_element(floor_times.begin(), floor_times.end()));
    std::printf("ratio app_header_seconds %.3f\n", median(app_times));
    std::printf("ratio app_header_vs_std_floor %.3f\n", median(app_times) / median(floor_times));
    return 0;
}
