// weft's side of bench/geometry: the bundled mesh and hash_grid plugins on
// the CPU (all cores), timed as warp_side.py times warp-lang (best of
// --repeat after one warm-up). Prints `weft <name>_ms <value>` lines.
//   bench_geometry --plugins DIR --kernels kernels.py --cache-dir DIR [--rays N] [--lat N --lon N] [--points N]
#include "weft/host/host.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace weft;

namespace {

double best_ms(int repeat, const std::function<void()> &f) {
    f();
    double best = 1e30;
    for (int i = 0; i < repeat; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

double frac(double i, double a) { return std::fmod(i * a, 1.0); }

} // namespace

int main(int argc, char **argv) {
    std::string plugins, kernels, cache;
    long rays = 1 << 20, points_n = 1 << 20;
    int lat = 250, lon = 400, repeat = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--plugins") plugins = argv[i + 1];
        else if (a == "--kernels") kernels = argv[i + 1];
        else if (a == "--cache-dir") cache = argv[i + 1];
        else if (a == "--rays") rays = std::stol(argv[i + 1]);
        else if (a == "--lat") lat = std::stoi(argv[i + 1]);
        else if (a == "--lon") lon = std::stoi(argv[i + 1]);
        else if (a == "--points") points_n = std::stol(argv[i + 1]);
        else if (a == "--repeat") repeat = std::stoi(argv[i + 1]);
    }
    if (plugins.empty() || kernels.empty() || cache.empty()) {
        std::fprintf(stderr, "usage: bench_geometry --plugins DIR --kernels kernels.py --cache-dir DIR [...]\n");
        return 2;
    }
    try {
        HostOptions o;
        o.quiet = true;
        o.use_environment = false;
        o.cache_dir = cache;
        Host host(o);
        host.load(plugins + "/mesh");
        host.load(plugins + "/hash_grid");
        const CompiledModule m = host.load_module(kernels);
        const Type vec3 = Type::vector(Scalar::Float32, 3);

        // A UV sphere of lat * lon * 2 triangles (inputs.py's).
        std::vector<values::vec3f> pts;
        std::vector<int> idx;
        for (int i = 0; i <= lat; ++i)
            for (int j = 0; j < lon; ++j) {
                const double t = M_PI * i / lat, p = 2.0 * M_PI * j / lon;
                pts.push_back(values::vec3f{{static_cast<float>(std::sin(t) * std::cos(p)), static_cast<float>(std::cos(t)),
                                             static_cast<float>(std::sin(t) * std::sin(p))}});
            }
        for (int i = 0; i < lat; ++i)
            for (int j = 0; j < lon; ++j) {
                const int a = i * lon + j, b = i * lon + (j + 1) % lon, c = (i + 1) * lon + j, d = (i + 1) * lon + (j + 1) % lon;
                idx.insert(idx.end(), {a, c, b, b, c, d});
            }
        Array points = Array::from_vector(pts);
        Array indices = Array::from_vector(Type::scalar(Scalar::Int32), idx);
        Object mesh;
        std::printf("weft mesh_triangles %zu\n", idx.size() / 3);
        std::printf("weft mesh_build_ms %.3f\n",
                    best_ms(repeat, [&] { mesh = host.create("mesh", {{"points", points}, {"indices", indices}}); }));

        std::vector<values::vec3f> s(static_cast<std::size_t>(rays)), d(static_cast<std::size_t>(rays));
        for (long i = 0; i < rays; ++i) {
            const double z = 1.0 - 2.0 * frac(static_cast<double>(i), 0.6180339887498949);
            const double phi = 2.0 * M_PI * frac(static_cast<double>(i), 0.7548776662466927);
            const double r = std::sqrt(std::max(0.0, 1.0 - z * z));
            const double st[3] = {3.0 * r * std::cos(phi), 3.0 * z, 3.0 * r * std::sin(phi)};
            const double tg[3] = {(frac(static_cast<double>(i), 0.5698402909980532) - 0.5) * 1.6,
                                  (frac(static_cast<double>(i), 0.3819660112501051) - 0.5) * 1.6,
                                  (frac(static_cast<double>(i), 0.2451223337533073) - 0.5) * 1.6};
            double dv[3] = {tg[0] - st[0], tg[1] - st[1], tg[2] - st[2]};
            const double len = std::sqrt(dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2]);
            for (int k = 0; k < 3; ++k) {
                s[static_cast<std::size_t>(i)].c[k] = static_cast<float>(st[k]);
                d[static_cast<std::size_t>(i)].c[k] = static_cast<float>(dv[k] / len);
            }
        }
        Array starts = Array::from_vector(s), dirs = Array::from_vector(d);
        Array ts = Array::zeros(Type::scalar(Scalar::Float32), {rays});
        const Kernel cast = m.kernel("cast");
        std::printf("weft rays_ms %.3f\n", best_ms(repeat, [&] { cast.launch({rays}, {mesh, starts, dirs, ts}); }));
        long hit = 0;
        for (float t : ts.to_vector<float>()) hit += t >= 0;
        std::printf("weft rays_hit %ld\n", hit);

        const double side = 100.0;
        std::vector<values::vec3f> cloud(static_cast<std::size_t>(points_n));
        for (long i = 0; i < points_n; ++i)
            cloud[static_cast<std::size_t>(i)] =
                values::vec3f{{static_cast<float>(frac(static_cast<double>(i), 0.6180339887498949) * side),
                               static_cast<float>(frac(static_cast<double>(i), 0.7548776662466927) * side),
                               static_cast<float>(frac(static_cast<double>(i), 0.5698402909980532) * side)}};
        Array p = Array::from_vector(cloud);
        const double radius = side / std::cbrt(static_cast<double>(points_n)) * 1.5;
        Object grid = host.create("hash_grid", {{"dim_x", std::int64_t{128}}, {"dim_y", std::int64_t{128}}, {"dim_z", std::int64_t{128}}});
        Array counts = Array::zeros(Type::scalar(Scalar::Int32), {points_n});
        const Kernel neighbors = m.kernel("neighbors");
        std::printf("weft hash_grid_build_ms %.3f\n",
                    best_ms(repeat, [&] { grid.call("build", {{"points", p}, {"radius", radius}}); }));
        std::printf("weft hash_grid_ms %.3f\n", best_ms(repeat, [&] {
                        grid.call("build", {{"points", p}, {"radius", radius}});
                        neighbors.launch({points_n}, {grid, p, static_cast<float>(radius), counts});
                    }));
        long total = 0;
        for (int c : counts.to_vector<int>()) total += c;
        std::printf("weft hash_grid_neighbors %ld\n", total);
        (void)vec3;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "bench_geometry: %s\n", e.what());
        return 1;
    }
    return 0;
}
