// Runs tests/geometry/mesh_kernels.py in weft with the bundled mesh and bvh
// plugins on geometry_inputs.hpp's data and prints the lines
// tests/geometry/warp_side_mesh.py prints from warp-lang (diff_geometry.py
// compares them). Usage: geometry_run <bundled plugin dir> <mesh_kernels.py>
#include "geometry_inputs.hpp"

#include "weft/host/host.hpp"

#include <cstdio>
#include <iostream>
#include <string>

using namespace weft;
namespace gi = geometry_inputs;

namespace {

const Type vec3 = Type::vector(Scalar::Float32, 3);
const Type i32 = Type::scalar(Scalar::Int32);
const Type f32 = Type::scalar(Scalar::Float32);

void report(const std::string &name, double v) { std::printf("%s %.17g\n", name.c_str(), v); }
void report(const std::string &name, long long v) { std::printf("%s %lld\n", name.c_str(), v); }

double vsum(const std::vector<values::vec3f> &v, const std::vector<bool> &mask) {
    double s = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        if (mask[i]) s += static_cast<double>(v[i].c[0]) + v[i].c[1] + v[i].c[2];
    return s;
}

void run_mesh(Host &host, const CompiledModule &m, const std::string &tag, const gi::Mesh &mesh) {
    Array points = Array::from_vector(mesh.points);
    Array indices = Array::from_vector(i32, mesh.indices);
    Object obj = host.create("mesh", {{"points", points}, {"indices", indices}});
    const int n = 1000;
    Array qp = Array::from_vector(gi::query_points(n, 4.0));
    Array faces = Array::zeros(i32, {n}), nearest = Array::zeros(vec3, {n}), dist = Array::zeros(f32, {n});
    m.kernel("closest").launch({n}, {obj, qp, 0.75f, faces, nearest, dist});
    {
        const auto d = dist.to_vector<float>();
        const auto f = faces.to_vector<int>();
        std::vector<bool> found(n);
        long long count = 0, face_sum = 0;
        double dsum = 0;
        for (int i = 0; i < n; ++i)
            if ((found[static_cast<std::size_t>(i)] = d[static_cast<std::size_t>(i)] >= 0)) {
                ++count;
                dsum += d[static_cast<std::size_t>(i)];
                face_sum += f[static_cast<std::size_t>(i)];
            }
        report(tag + ".closest.found", count);
        report(tag + ".closest.dist_sum", dsum);
        report(tag + ".closest.nearest_sum", vsum(nearest.to_vector<values::vec3f>(), found));
        report(tag + ".closest.face_sum", face_sum);
    }
    {
        Array signs = Array::zeros(f32, {n});
        m.kernel("closest_sign").launch({n}, {obj, qp, 0.75f, signs, dist});
        const auto sg = signs.to_vector<float>();
        const auto d = dist.to_vector<float>();
        long long inside = 0, outside = 0;
        double dsum = 0;
        for (int i = 0; i < n; ++i) {
            const float s = sg[static_cast<std::size_t>(i)];
            inside += s < 0;
            outside += s > 0;
            if (s != 0) dsum += d[static_cast<std::size_t>(i)];
        }
        report(tag + ".sign.inside", inside);
        report(tag + ".sign.outside", outside);
        report(tag + ".sign.dist_sum", dsum);
    }
    {
        Array signs = Array::zeros(f32, {n});
        m.kernel("closest_vote").launch({n}, {obj, qp, signs});
        long long inside = 0, outside = 0;
        for (float s : signs.to_vector<float>()) {
            inside += s < 0;
            outside += s > 0;
        }
        report(tag + ".vote.inside", inside);
        report(tag + ".vote.outside", outside);
    }
    {
        m.kernel("furthest").launch({n}, {obj, qp, dist});
        long long found = 0;
        double dsum = 0;
        for (float d : dist.to_vector<float>())
            if (d >= 0) {
                ++found;
                dsum += d;
            }
        report(tag + ".furthest.found", found);
        report(tag + ".furthest.dist_sum", dsum);
    }
    gi::Points starts, dirs;
    gi::rays(n, 3.0, starts, dirs);
    Array ts = Array::zeros(f32, {n}), normals = Array::zeros(vec3, {n}), signs = Array::zeros(f32, {n});
    m.kernel("raycast").launch({n}, {obj, Array::from_vector(starts), Array::from_vector(dirs), faces, ts, normals, signs});
    {
        const auto t = ts.to_vector<float>();
        const auto f = faces.to_vector<int>();
        const auto s = signs.to_vector<float>();
        std::vector<bool> hit(n);
        long long hits = 0, face_sum = 0, positive = 0;
        double tsum = 0;
        for (int i = 0; i < n; ++i)
            if ((hit[static_cast<std::size_t>(i)] = t[static_cast<std::size_t>(i)] >= 0)) {
                ++hits;
                tsum += t[static_cast<std::size_t>(i)];
                face_sum += f[static_cast<std::size_t>(i)];
                positive += s[static_cast<std::size_t>(i)] > 0;
            }
        report(tag + ".ray.hits", hits);
        report(tag + ".ray.t_sum", tsum);
        report(tag + ".ray.face_sum", face_sum);
        report(tag + ".ray.normal_sum", vsum(normals.to_vector<values::vec3f>(), hit));
        report(tag + ".ray.sign_positive", positive);
    }
    gi::Points lo, hi;
    gi::boxes(n, 4.0, 0.3, lo, hi);
    Array lows = Array::from_vector(lo), highs = Array::from_vector(hi);
    Array counts = Array::zeros(i32, {n}), sums = Array::zeros(i32, {n});
    m.kernel("box_faces").launch({n}, {obj, lows, highs, counts, sums});
    const auto total = [](const Array &a) {
        long long s = 0;
        for (int v : a.to_vector<int>()) s += v;
        return s;
    };
    report(tag + ".aabb.count_sum", total(counts));
    report(tag + ".aabb.face_sum", total(sums));
    Array counts2 = Array::zeros(i32, {n});
    m.kernel("box_faces_while").launch({n}, {obj, lows, highs, counts2});
    report(tag + ".aabb_while.count_sum", total(counts2));
    Array vsum_out = Array::zeros(vec3, {1});
    const int np = static_cast<int>(mesh.points.size());
    m.kernel("vertex_sum").launch({np}, {obj, np, vsum_out});
    report(tag + ".vertex_sum", vsum(vsum_out.to_vector<values::vec3f>(), {true}));
}

} // namespace

/// Every geometry kernel file through NVRTC (PTX and CUBIN) and the CPU
/// compiler, forward, and backward where it has one: what needs no device. The
/// mesh queries have no gradients yet (their results are constants), so a
/// backward pass through one is refused, naming the field; that is checked too.
int compile_all(const std::string &plugins, int files, char **paths) {
    HostOptions options;
    options.quiet = true;
    options.use_environment = false;
    Host host(options);
    for (const char *name : {"mesh", "bvh", "hash_grid"}) host.load(plugins + "/" + name);
    const std::vector<Target> targets{Target::cpu(), Target::cuda_ptx(90), Target::cuda_cubin(80)};
    for (int i = 0; i < files; ++i)
        for (const Pass pass : {Pass::Forward, Pass::Backward}) {
            const bool mesh_queries = std::string(paths[i]).find("mesh_kernels") != std::string::npos;
            if (pass == Pass::Backward && mesh_queries) {
                try {
                    host.compile_aot(paths[i], targets, {}, {}, pass);
                    std::printf("%s backward: compiled, but a mesh query's gradient would be lost\n", paths[i]);
                    return 1;
                } catch (const std::exception &e) {
                    if (std::string(e.what()).find("a native type is not differentiable, so the gradient would be lost") ==
                        std::string::npos)
                        throw;
                    std::printf("%s backward: refused, as it must be: %.120s...\n", paths[i], e.what());
                }
                continue;
            }
            const auto artifacts = host.compile_aot(paths[i], targets, {}, {}, pass);
            std::printf("%s %s: %zu artifacts (cpu, PTX sm_90, CUBIN sm_80)\n", paths[i],
                        pass == Pass::Forward ? "forward" : "backward", artifacts.size());
            if (artifacts.size() != targets.size()) return 1;
        }
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 4 && std::string(argv[1]) == "--compile") {
        try {
            return compile_all(argv[2], argc - 3, argv + 3);
        } catch (const std::exception &e) {
            std::cerr << "geometry_run: " << e.what() << "\n";
            return 1;
        }
    }
    if (argc != 3) {
        std::cerr << "usage: geometry_run <bundled plugin dir> <mesh_kernels.py>\n"
                     "       geometry_run --compile <bundled plugin dir> FILE.py...\n";
        return 2;
    }
    try {
        HostOptions options;
        options.quiet = true;
        options.use_environment = false;
        Host host(options);
        host.load(std::string(argv[1]) + "/mesh");
        host.load(std::string(argv[1]) + "/bvh");
        const CompiledModule m = host.load_module(argv[2]);
        run_mesh(host, m, "sphere", gi::sphere());
        run_mesh(host, m, "box", gi::box_mesh());
        run_mesh(host, m, "soup", gi::soup());

        gi::Points lo, hi;
        gi::triangle_bounds(gi::soup(), lo, hi);
        Array lowers = Array::from_vector(lo), uppers = Array::from_vector(hi);
        Object bvh = host.create("bvh", {{"lowers", lowers}, {"uppers", uppers}});
        const int n = 1000;
        gi::Points qlo, qhi;
        gi::boxes(n, 4.0, 0.3, qlo, qhi);
        Array counts = Array::zeros(i32, {n}), sums = Array::zeros(i32, {n});
        const auto total = [](const Array &a) {
            long long t = 0;
            for (int v : a.to_vector<int>()) t += v;
            return t;
        };
        m.kernel("bvh_boxes").launch({n}, {bvh, Array::from_vector(qlo), Array::from_vector(qhi), counts, sums});
        report("bvh.aabb.count_sum", total(counts));
        report("bvh.aabb.index_sum", total(sums));
        gi::Points starts, dirs;
        gi::rays(n, 3.0, starts, dirs);
        m.kernel("bvh_rays").launch({n}, {bvh, Array::from_vector(starts), Array::from_vector(dirs), counts, sums});
        report("bvh.ray.count_sum", total(counts));
        report("bvh.ray.index_sum", total(sums));
    } catch (const std::exception &e) {
        std::cerr << "geometry_run: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
