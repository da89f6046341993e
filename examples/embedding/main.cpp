// An application embedding weft: two plugins installed with weft (colors,
// philox), one kernel module that uses both, and a kernel that takes an array
// of vec3 and a struct filled by field name, run on the CPU and checked.
#include <weft/weft.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

// Warp-style Python, checked and compiled in process when first loaded, then
// taken from the artifact cache. The luminance of a gray color is its level.
const char *const kernels = R"(
import warp as wp

@wp.struct
class Wind:
    direction: wp.vec3
    strength: float

@wp.kernel
def noisy_gray(seed: wp.uint64, gain: float, level: wp.array(dtype=float), luminance: wp.array(dtype=float)):
    i = wp.tid()
    u = wp.philox_uniform(seed, wp.uint64(i))
    level[i] = u
    luminance[i] = wp.colors_luminance(wp.colors_scale(colors.Color(u, u, u), gain))

@wp.kernel
def blow(points: wp.array(dtype=wp.vec3), wind: Wind):
    i = wp.tid()
    points[i] = points[i] + wind.direction * wind.strength
)";

int main() {
    try {
        weft::Host host; // the search path ends with the plugins installed beside libweft
        for (const char *name : {"colors", "philox"}) {
            const weft::LoadedPlugin &p = host.load_by_name(name);
            std::printf("loaded %s %s from %s\n", name, p.manifest.version.str().c_str(), p.manifest.path.c_str());
        }
        weft::CompiledModule module = host.load_module_source("noisy_gray", kernels);

        const std::int64_t n = 1000;
        const float gain = 2.0f;
        weft::Array level = weft::Array::zeros(weft::type_of<float>(), {n});
        weft::Array luminance = weft::Array::zeros(weft::type_of<float>(), {n});
        module.kernel("noisy_gray").launch({n}, {std::uint64_t{42}, gain, level, luminance});

        const std::vector<float> u = level.to_vector<float>(), lum = luminance.to_vector<float>();
        double mean = 0;
        bool ok = true;
        for (std::size_t i = 0; i < u.size(); ++i) {
            ok = ok && u[i] >= 0.0f && u[i] < 1.0f && std::fabs(lum[i] - gain * u[i]) <= 1e-5f;
            mean += u[i] / static_cast<double>(n);
        }
        ok = ok && std::fabs(mean - 0.5) < 0.05; // uniform in [0, 1): the mean of 1000 is 0.5 +- 0.01
        std::printf("luminance[0] = %.6f = %.1f * %.6f; mean level %.4f: %s\n", double{lum[0]}, double{gain},
                    double{u[0]}, mean, ok ? "ok" : "WRONG");

        // Host values have the kernel types' layouts: an array of weft::vec3f is
        // an array of wp.vec3, and a struct argument is filled by field name,
        // each field checked against its type.
        const weft::Kernel blow = module.kernel("blow");
        weft::Array points = weft::Array::from_vector(std::vector<weft::vec3f>{{0, 0, 0}, {1, 2, 3}});
        weft::StructValue wind = blow.make_struct("wind");
        wind.set("direction", weft::vec3f{1, 0, -1}).set("strength", 0.5f);
        blow.launch({2}, {points, wind});
        const std::vector<weft::vec3f> moved = points.to_vector<weft::vec3f>();
        const bool blown = moved[0] == weft::vec3f{0.5f, 0, -0.5f} && moved[1] == weft::vec3f{1.5f, 2, 2.5f};
        std::printf("points[1] = (%g, %g, %g): %s\n", double{moved[1][0]}, double{moved[1][1]}, double{moved[1][2]},
                    blown ? "ok" : "WRONG");
        return ok && blown ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "embedding: %s\n", e.what());
        return 1;
    }
}
