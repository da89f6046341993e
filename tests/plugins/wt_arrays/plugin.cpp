// Builtins whose parameters are arrays (any dtype and ndim), vectors and
// matrices, as Warp's add_builtin allows. The typed signatures name them with
// the SDK's mirrors of the runtime types; the functions kernels call (in the
// preamble) take the runtime types themselves: weft::array_t<T>, weft::vec3.
#include <weft/plugin.hpp>

#include <cstdint>

namespace {

namespace sdk = weft::plugin;

constexpr const char *preamble = R"(namespace wt_arrays {
// Sum of a 1-d float32 array, plus the components of v.
WEFT_CALLABLE inline weft::float32 sum_plus(weft::array_t<weft::float32> a, weft::vec3 v) {
    weft::float32 s = v.c[0] + v.c[1] + v.c[2];
    for (weft::int32 i = 0; i < a.shape[0]; ++i) s += weft::index(a, i);
    return s;
}
// Rows times columns of a 2-d int32 array, and the sum of its elements times 1000.
WEFT_CALLABLE inline weft::int64 shape_and_sum(weft::array_t<weft::int32> a) {
    weft::int64 s = 0;
    for (weft::int32 i = 0; i < a.shape[0]; ++i)
        for (weft::int32 j = 0; j < a.shape[1]; ++j) s += weft::index(a, i, j);
    return weft::int64(a.ndim) * 1000000 + weft::int64(a.shape[0] * a.shape[1]) * 1000 + s;
}
// Every point multiplied by m, in place (writes through the view).
WEFT_CALLABLE inline void transform_all(weft::array_t<weft::vec3> points, weft::mat33 m) {
    for (weft::int32 i = 0; i < points.shape[0]; ++i) {
        weft::vec3 &p = weft::index(points, i);
        weft::vec3 q;
        for (int r = 0; r < 3; ++r) q.c[r] = m.c[r].c[0] * p.c[0] + m.c[r].c[1] * p.c[1] + m.c[r].c[2] * p.c[2];
        p = q;
    }
}
} // namespace wt_arrays
)";

void init(sdk::Registrar &r) {
    r.builtin<float(sdk::array_t<float>, sdk::vec3)>("_arr_sum_plus", {"a", "v"}, "wt_arrays::sum_plus");
    r.builtin<std::int64_t(sdk::array_t<std::int32_t, 2>)>("_arr_shape_and_sum", {"a"}, "wt_arrays::shape_and_sum");
    r.builtin<void(sdk::array_t<sdk::vec3>, sdk::mat33)>("_arr_transform_all", {"points", "m"},
                                                        "wt_arrays::transform_all");
    sdk::BuildOptions o;
    o.cpu_preamble = preamble;
    o.cuda_preamble = preamble;
    r.add(o);
}

} // namespace

WEFT_PLUGIN("wt_arrays", "1.0.0", init)
