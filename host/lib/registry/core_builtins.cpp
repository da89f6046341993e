// weft's core builtins, registered through the same Registry path as plugin
// builtins (owner "core", no namespace policy), so overload resolution sees
// one table and plugins can add overloads to these names (`add(Color, Color)`).
// Operators resolve to these names: + add, - sub, * mul, / div, // floordiv,
// % mod, ** pow, unary - neg, unary + pos, ~ invert, & bit_and, | bit_or,
// ^ bit_xor, << lshift, >> rshift, < lt, <= le, > gt, >= ge, == eq, != ne.
//
// Builtins whose types depend on their arguments in ways no finite overload
// list covers (tid, len, atomics over any array, select, print, expect_*)
// are registered as generic: the checker types them, the registry documents them.
#include "weft/registry/registry.hpp"

#include <string>
#include <vector>

namespace weft {

namespace {

struct Registrar {
    Registry::Transaction &tx;

    void add(const std::string &name, std::vector<ParameterSpec> params, const std::string &result,
             const std::string &doc) {
        tx.add_builtin(BuiltinSpec{name, std::move(params), result, "weft::" + name, doc, {}});
    }
    void generic(const std::string &name, const std::string &signature, const std::string &doc) {
        tx.add_builtin(BuiltinSpec{name, {}, "", "weft::" + name, doc, signature});
    }
    void binary(const std::string &name, const std::string &type, const std::string &doc,
                const std::string &result = {}) {
        add(name, {{"a", type}, {"b", type}}, result.empty() ? type : result, doc);
    }
    /// Parameter names are Warp's (`a` for most, `x` for math functions):
    /// a keyword call names them.
    void unary(const std::string &name, const std::string &type, const std::string &doc,
               const std::string &result = {}, const std::string &param = "a") {
        add(name, {{param, type}}, result.empty() ? type : result, doc);
    }
};

const std::vector<std::string> int_types{"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"};
const std::vector<std::string> float_types{"float16", "bfloat16", "float32", "float64"};

} // namespace

void register_core_builtins(Registry &registry) {
    Registry::Transaction tx = registry.begin("core");
    Registrar r{tx};

    // Warp's random numbers (weft/rt/random.h): the uint32 state advances in place.
    r.add("rand_init", {{"seed", "int32"}}, "uint32", "A random state for seed (Warp's PCG hash).");
    r.add("rand_init", {{"seed", "int32"}, {"offset", "int32"}}, "uint32",
          "A random state for seed and offset (e.g. the thread's index): independent streams per offset.");
    r.add("randi", {{"state", "uint32"}}, "int32", "A random int32; advances state.");
    r.add("randi", {{"state", "uint32"}, {"low", "int32"}, {"high", "int32"}}, "int32",
          "A random int32 in [low, high); advances state.");
    r.add("randu", {{"state", "uint32"}}, "uint32", "A random uint32; advances state.");
    r.add("randu", {{"state", "uint32"}, {"low", "uint32"}, {"high", "uint32"}}, "uint32",
          "A random uint32 in [low, high); advances state.");
    r.add("randf", {{"state", "uint32"}}, "float32", "A uniform float32 in [0, 1) on a 2^-24 grid; advances state.");
    r.add("randf", {{"state", "uint32"}, {"low", "float32"}, {"high", "float32"}}, "float32",
          "A uniform float32 in [low, high); advances state.");
    r.add("randn", {{"state", "uint32"}}, "float32", "A standard normal float32 (Box-Muller); advances state.");
    for (const char *name : {"sample_triangle", "sample_unit_ring", "sample_unit_disk", "sample_unit_square"})
        r.add(name, {{"state", "uint32"}}, "vec2", std::string("Warp's ") + name + ": a uniform point; advances state.");
    for (const char *name : {"sample_unit_sphere_surface", "sample_unit_sphere", "sample_unit_hemisphere_surface",
                             "sample_unit_hemisphere", "sample_unit_cube"})
        r.add(name, {{"state", "uint32"}}, "vec3", std::string("Warp's ") + name + ": a uniform point; advances state.");
    r.add("sample_cdf", {{"state", "uint32"}, {"cdf", "array(float32)"}}, "int32",
          "The first index of the ascending 1-D cdf not below a uniform draw; advances state.");
    // Warp's lower_bound (weft/rt/array.h): a binary search of an ascending 1-D array.
    for (const std::vector<std::string> *types : {&int_types, &float_types})
        for (const std::string &t : *types) {
            const std::string arr = "array(" + t + ")";
            r.add("lower_bound", {{"arr", arr}, {"value", t}}, "int32",
                  "The first index of the ascending arr whose element is not below value (its last index when "
                  "every element is below, as Warp's).");
            r.add("lower_bound", {{"arr", arr}, {"arr_begin", "int32"}, {"arr_end", "int32"}, {"value", t}}, "int32",
                  "The same search of arr[arr_begin:arr_end] (arr_end - 1 when every element there is below value).");
        }
    r.add("poisson", {{"state", "uint32"}, {"lam", "float32"}}, "uint32",
          "A Poisson-distributed count with mean lam (Warp's algorithm); advances state.");

    // Warp's Perlin noise (weft/rt/noise.h): state selects the field and is not advanced.
    r.add("noise", {{"state", "uint32"}, {"x", "float32"}}, "float32", "1-D Perlin noise at x.");
    r.add("noise", {{"state", "uint32"}, {"xy", "vec2"}}, "float32", "2-D Perlin noise at xy.");
    r.add("noise", {{"state", "uint32"}, {"xyz", "vec3"}}, "float32", "3-D Perlin noise at xyz.");
    r.add("noise", {{"state", "uint32"}, {"xyzt", "vec4"}}, "float32", "4-D Perlin noise at xyzt.");
    r.add("pnoise", {{"state", "uint32"}, {"x", "float32"}, {"px", "int32"}}, "float32",
          "1-D Perlin noise repeating every px (> 0) units; x non-negative.");
    r.add("pnoise", {{"state", "uint32"}, {"xy", "vec2"}, {"px", "int32"}, {"py", "int32"}}, "float32",
          "2-D Perlin noise repeating every px, py (> 0) units; xy non-negative.");
    r.add("pnoise", {{"state", "uint32"}, {"xyz", "vec3"}, {"px", "int32"}, {"py", "int32"}, {"pz", "int32"}},
          "float32", "3-D Perlin noise repeating every px, py, pz (> 0) units; xyz non-negative.");
    r.add("pnoise",
          {{"state", "uint32"}, {"xyzt", "vec4"}, {"px", "int32"}, {"py", "int32"}, {"pz", "int32"}, {"pt", "int32"}},
          "float32", "4-D Perlin noise repeating every px, py, pz, pt (> 0) units; xyzt non-negative.");
    // Warp's defaults (octaves 1, lacunarity 2.0, gain 0.5) as shorter overloads.
    struct CurlForm {
        const char *point, *name, *result;
    };
    for (const CurlForm &f : {CurlForm{"vec2", "xy", "vec2"}, CurlForm{"vec3", "xyz", "vec3"},
                              CurlForm{"vec4", "xyzt", "vec3"}}) {
        const std::string point = f.point, name = f.name, result = f.result;
        const std::string doc = std::string("Divergence-free curl of Perlin noise at ") + name +
                                ", summed over octaves (default 1) with frequency lacunarity^i (default 2.0) and "
                                "weight gain^i (default 0.5).";
        std::vector<ParameterSpec> params{{"state", "uint32"}, {name, point}};
        r.add("curlnoise", params, result, doc);
        params.push_back({"octaves", "uint32"});
        r.add("curlnoise", params, result, doc);
        params.push_back({"lacunarity", "float32"});
        r.add("curlnoise", params, result, doc);
        params.push_back({"gain", "float32"});
        r.add("curlnoise", params, result, doc);
    }

    std::vector<std::string> numeric = int_types;
    numeric.insert(numeric.end(), float_types.begin(), float_types.end());

    for (const std::string &t : numeric) {
        r.binary("add", t, "Returns a + b.");
        r.binary("sub", t, "Returns a - b.");
        r.binary("mul", t, "Returns a * b.");
        r.binary("div", t, "Returns a / b (truncating for integers).");
        r.binary("floordiv", t, "Returns a // b, rounded toward negative infinity.");
        r.binary("mod", t, "Returns a % b with the sign of a, as C and Warp (-7 % 3 == -1; // floors: -7 // 3 == -3).");
        r.binary("min", t, "Returns the smaller of a and b.");
        r.binary("max", t, "Returns the larger of a and b.");
        r.unary("neg", t, "Returns -a.");
        r.unary("pos", t, "Returns +a.");
        r.unary("abs", t, "Returns |x|.", t, "x");
        r.unary("sign", t, "Returns -1 when x < 0, else 1 (0 and NaN give 1, as in Warp).", t, "x");
        r.add("clamp", {{"x", t}, {"low", t}, {"high", t}}, t, "Clamps x to [low, high].");
        for (const char *cmp : {"lt", "le", "gt", "ge", "eq", "ne"})
            r.binary(cmp, t, std::string("Compares a and b (") + cmp + ").", "bool");
    }
    r.binary("eq", "bool", "Returns a == b.", "bool");
    r.binary("ne", "bool", "Returns a != b.", "bool");
    for (const std::string &t : int_types) {
        r.binary("bit_and", t, "Returns a & b.");
        r.binary("bit_or", t, "Returns a | b.");
        r.binary("bit_xor", t, "Returns a ^ b.");
        r.binary("lshift", t, "Returns a << b.");
        r.binary("rshift", t, "Returns a >> b.");
        r.unary("invert", t, "Returns ~a.");
    }
    for (const std::string &t : float_types) {
        for (const char *name : {"sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan",
                                 "sinh", "cosh", "tanh", "floor", "ceil", "round", "trunc"})
            r.unary(name, t, std::string("Returns ") + name + "(x).", t, "x");
        r.unary("rint", t, "Returns the integer nearest x, halfway cases to even (Warp's rint; round goes away from zero).",
                t, "x");
        r.add("pow", {{"x", t}, {"y", t}}, t, "Returns x raised to the power y.");
        r.add("lerp", {{"a", t}, {"b", t}, {"t", t}}, t, "Returns a (1 - t) + b t.");
        r.add("atan2", {{"y", t}, {"x", t}}, t, "Returns the angle of the point (x, y).");
        r.unary("isfinite", t, "True when a is neither infinite nor NaN.", "bool");
        r.unary("isnan", t, "True when a is NaN.", "bool");
        r.unary("isinf", t, "True when a is infinite.", "bool");
        r.unary("cbrt", t, "Returns the cube root of x.", t, "x");
        r.unary("erf", t, "Returns the error function of x.", t, "x");
        r.unary("erfc", t, "Returns 1 - erf(x).", t, "x");
        r.unary("frac", t, "Returns x - trunc(x), the fractional part with the sign of x.", t, "x");
        r.add("copysign", {{"x", t}, {"y", t}}, t, "Returns x with the sign of y.");
        r.add("div_approx", {{"a", t}, {"b", t}}, t,
              "Returns a / b (Warp's CUDA code may use a faster reciprocal; weft divides exactly on every device).");
        r.add("smoothstep", {{"a", t}, {"b", t}, {"x", t}}, t,
              "Smooth Hermite step: 0 at x <= a, 1 at x >= b, 3u^2 - 2u^3 between, u = (x - a) / (b - a).");
    }
    for (const std::string &t : numeric) {
        r.unary("step", t, "Returns 1 when x < 0, else 0 (Warp's step).", t, "x");
        r.unary("nonzero", t, "Returns 1 when x != 0, else 0.", t, "x");
    }
    for (const std::string &t : int_types) r.unary("bit_count", t, "Returns the number of set bits of x.", "int32", "x");

    // Vectors of float32 ("vecN"), float64 ("vecNd"), float16 ("vecNh") and int32 ("vecNi").
    for (const char *suffix : {"", "d", "h", "i"}) {
        const std::string sfx = suffix;
        const std::string s = sfx == "d" ? "float64" : sfx == "h" ? "float16" : sfx == "i" ? "int32" : "float32";
        for (int n = 2; n <= 4; ++n) {
            const std::string v = "vec" + std::to_string(n) + suffix;
            r.binary("add", v, "Component-wise a + b.");
            r.binary("sub", v, "Component-wise a - b.");
            r.unary("neg", v, "Component-wise -a.");
            r.unary("pos", v, "Returns a.");
            r.add("mul", {{"a", v}, {"b", s}}, v, "Scales vector a by b.");
            r.add("mul", {{"a", s}, {"b", v}}, v, "Scales vector b by a.");
            r.add("div", {{"a", v}, {"b", s}}, v, "Divides every component of a by b.");
            r.binary("min", v, "Component-wise minimum.");
            r.binary("max", v, "Component-wise maximum.");
            r.binary("cw_mul", v, "Component-wise product.");
            r.binary("eq", v, "True when every component is equal.", "bool");
            r.binary("ne", v, "True when any component differs.", "bool");
            r.add("dot", {{"a", v}, {"b", v}}, s, "Dot product of a and b.");
            r.add("argmax", {{"a", v}}, "uint32", "The index of the largest component, NaNs skipped (0 when all are NaN).");
            r.add("argmin", {{"a", v}}, "uint32", "The index of the smallest component, NaNs skipped (0 when all are NaN).");
            if (s != "int32") {
                r.add("lerp", {{"a", v}, {"b", v}, {"t", s}}, v, "a (1 - t) + b t, per component.");
                r.unary("abs", v, "Component-wise |a|.");
                r.add("length", {{"a", v}}, s, "Euclidean length of a.");
                r.add("length_sq", {{"a", v}}, s, "Squared Euclidean length of a.");
                r.unary("normalize", v, "Returns a scaled to unit length (zero stays zero).");
            }
        }
        if (s != "int32") r.binary("cross", std::string("vec3") + suffix, "Cross product of a and b.");
    }

    // Matrices and quaternions, float32 and float64.
    for (const char *suffix : {"", "d"}) {
        const std::string s = suffix == std::string("d") ? "float64" : "float32";
        for (int n = 2; n <= 4; ++n) {
            const std::string m = "mat" + std::to_string(n) + std::to_string(n) + suffix;
            const std::string v = "vec" + std::to_string(n) + suffix;
            r.binary("add", m, "Element-wise a + b.");
            r.binary("sub", m, "Element-wise a - b.");
            r.unary("neg", m, "Element-wise -a.");
            r.binary("mul", m, "Matrix product a b.");
            r.add("mul", {{"a", m}, {"b", v}}, v, "Matrix-vector product a b.");
            r.add("mul", {{"a", v}, {"b", m}}, v, "Row-vector-matrix product a b.");
            r.add("mul", {{"a", m}, {"b", s}}, m, "Scales every element of a by b.");
            r.add("mul", {{"a", s}, {"b", m}}, m, "Scales every element of b by a.");
            r.add("div", {{"a", m}, {"b", s}}, m, "Divides every element of a by b.");
            r.unary("transpose", m, "Returns the transpose of a.");
            r.add("ddot", {{"a", m}, {"b", m}}, s, "The double dot product: the sum of a[i, j] b[i, j] (Warp's multiply-adds).");
            r.add("diag", {{"vec", v}}, m, "The matrix with vec on its diagonal and zeros elsewhere.");
            r.add("get_diag", {{"mat", m}}, v, "The diagonal of mat.");
            r.add("determinant", {{"a", m}}, s, "Returns det(a).");
            {
                std::vector<ParameterSpec> vectors;
                for (int k = 0; k < n; ++k) vectors.push_back({std::string(1, char('a' + k)), v});
                r.add("matrix_from_cols", vectors, m, "The matrix whose columns are the arguments, in order.");
                r.add("matrix_from_rows", vectors, m, "The matrix whose rows are the arguments, in order.");
                // K vectors of length n, K != n: the non-square matrices Warp builds the same way.
                for (int k = 2; k <= 4; ++k) {
                    if (k == n) continue;
                    std::vector<ParameterSpec> some;
                    for (int j = 0; j < k; ++j) some.push_back({std::string(1, char('a' + j)), v});
                    const std::string sfx = m.substr(5); // "" or "d"
                    r.add("matrix_from_cols", some, "mat" + std::to_string(n) + std::to_string(k) + sfx,
                          "The " + std::to_string(n) + "x" + std::to_string(k) + " matrix whose columns are the arguments.");
                    r.add("matrix_from_rows", some, "mat" + std::to_string(k) + std::to_string(n) + sfx,
                          "The " + std::to_string(k) + "x" + std::to_string(n) + " matrix whose rows are the arguments.");
                }
            }
            r.unary("inverse", m, "The inverse of a (Warp's: the adjugate over the determinant; the zero matrix when "
                                  "a is singular).");
            r.unary("inverse_approx", m, "The inverse of a, as inverse (Warp's CUDA code may use a faster reciprocal; "
                                         "weft computes the same inverse on every device).");
            r.add("outer", {{"a", v}, {"b", v}}, m, "Outer product a b^T.");
            r.add("trace", {{"a", m}}, s, "Sum of the diagonal of a.");
            r.add("lerp", {{"a", m}, {"b", m}, {"t", s}}, m, "a (1 - t) + b t, per element.");
        }
        const std::string q = std::string("quat") + suffix;
        const std::string v3 = std::string("vec3") + suffix;
        r.binary("add", q, "Component-wise a + b.");
        r.binary("sub", q, "Component-wise a - b.");
        r.binary("mul", q, "Quaternion product a b.");
        r.add("mul", {{"a", q}, {"b", s}}, q, "Scales every component of a by b.");
        r.add("mul", {{"a", s}, {"b", q}}, q, "Scales every component of b by a.");
        r.add("div", {{"a", q}, {"b", s}}, q, "Divides every component of a by b.");
        r.unary("neg", q, "Component-wise -a.");
        r.unary("normalize", q, "Returns a scaled to unit length.");
        r.add("lerp", {{"a", q}, {"b", q}, {"t", s}}, q, "a (1 - t) + b t, per component (not normalized).");
        r.add("length", {{"a", q}}, s, "Norm of a.");
        r.unary("quat_inverse", q, "Inverse of a unit quaternion (its conjugate).", q, "quat");
        r.add("quat_rotate", {{"quat", q}, {"vec", v3}}, v3, "Rotates vec by the unit quaternion quat.");
        r.add("quat_rotate_inv", {{"quat", q}, {"vec", v3}}, v3, "Rotates vec by the inverse of the unit quaternion quat.");
        r.add("quat_from_axis_angle", {{"axis", v3}, {"angle", s}}, q, "Rotation by angle (radians) about axis.");
        r.add("skew", {{"vec", v3}}, std::string("mat33") + suffix, "The cross-product matrix of vec: skew(v) * u == cross(v, u).");
        r.add("quat_slerp", {{"a", q}, {"b", q}, {"t", s}}, q,
              "Spherical interpolation from a (t = 0) to b (t = 1) along the shorter arc.");
        r.add("quat_rpy", {{"roll", s}, {"pitch", s}, {"yaw", s}}, q,
              "Rotation from roll (about x), pitch (about y) and yaw (about z), in radians.");
        r.add("quat_to_matrix", {{"quat", q}}, std::string("mat33") + suffix,
              "The 3x3 rotation matrix of the unit quaternion quat.");
        for (const char *shape : {"mat33", "mat44"})
            r.add("quat_from_matrix", {{"mat", std::string(shape) + suffix}}, q,
                  "The unit quaternion of the rotation matrix mat (of a 4x4 one, its top-left 3x3 block), "
                  "by Warp's formula.");
    }

    // Rigid transforms and spatial vectors (weft/rt/spatial.h), float32 and float64.
    for (const char *suffix : {"", "d"}) {
        const std::string s = suffix == std::string("d") ? "float64" : "float32";
        const std::string t = std::string("transform") + suffix, v3 = std::string("vec3") + suffix;
        const std::string q = std::string("quat") + suffix, m33 = std::string("mat33") + suffix;
        const std::string m44 = std::string("mat44") + suffix;
        const std::string sv = std::string("spatial_vector") + suffix, sm = std::string("spatial_matrix") + suffix;
        r.binary("add", t, "Component-wise a + b.");
        r.binary("sub", t, "Component-wise a - b.");
        r.unary("neg", t, "Component-wise -a.");
        r.unary("pos", t, "Returns a.");
        r.binary("mul", t, "Composition a b (transform_multiply): b applied first.");
        r.add("mul", {{"a", t}, {"b", s}}, t, "Scales every component of a by b.");
        r.add("mul", {{"a", s}, {"b", t}}, t, "Scales every component of b by a.");
        r.binary("eq", t, "True when every component is equal.", "bool");
        r.binary("ne", t, "True when any component differs.", "bool");
        r.add("transform_get_translation", {{"xform", t}}, v3, "The translation p of xform.");
        r.add("transform_get_rotation", {{"xform", t}}, q, "The rotation q of xform.");
        r.add("transform_set_translation", {{"xform", t, 0, true}, {"p", v3}}, "",
              "Sets the translation of xform, a local, to p (xform.p = p).");
        r.add("transform_set_rotation", {{"xform", t, 0, true}, {"q", q}}, "",
              "Sets the rotation of xform, a local, to q, not normalized (xform.q = q).");
        r.add("transform_set_translation_copy", {{"xform", t}, {"p", v3}}, t, "xform with its translation p.");
        r.add("transform_set_rotation_copy", {{"xform", t}, {"q", q}}, t, "xform with its rotation q (not normalized).");
        r.add("transform_multiply", {{"a", t}, {"b", t}}, t,
              "Composition a b: translation a.p + quat_rotate(a.q, b.p), rotation a.q b.q.");
        r.add("transform_point", {{"xform", t}, {"point", v3}}, v3, "quat_rotate(xform.q, point) + xform.p.");
        r.add("transform_vector", {{"xform", t}, {"vec", v3}}, v3, "quat_rotate(xform.q, vec).");
        r.add("transform_point", {{"mat", m44}, {"point", v3}}, v3, "The first three rows of mat (point, 1).");
        r.add("transform_vector", {{"mat", m44}, {"vec", v3}}, v3, "The first three rows of mat (vec, 0).");
        r.unary("transform_inverse", t, "The inverse of xform (its rotation a unit quaternion).", t, "xform");
        r.add("spatial_vector", {{"w", v3}, {"v", v3}}, sv,
              "The spatial vector (w.x, w.y, w.z, v.x, v.y, v.z) (a twist, or a wrench).");
        r.add("spatial_top", {{"svec", sv}}, v3, "Components 0 to 2 (angular velocity or torque).");
        r.add("spatial_bottom", {{"svec", sv}}, v3, "Components 3 to 5 (linear velocity or force).");
        r.add("spatial_dot", {{"a", sv}, {"b", sv}}, s, "Dot product of two spatial vectors.");
        r.binary("spatial_cross", sv, "Twist cross twist: (w_a x w_b, v_a x w_b + w_a x v_b).");
        r.binary("spatial_cross_dual", sv, "Twist cross wrench: (w_a x w_b + v_a x v_b, w_a x v_b).");
        r.add("spatial_adjoint", {{"r", m33}, {"s", m33}}, sm, "The 6x6 block matrix [[r, 0], [s, r]].");
    }
    // Geometric tests (weft/rt/geometry.h).
    for (const char *v3 : {"vec3", "vec3d"})
        r.add("intersect_tri_tri", {{"v0", v3}, {"v1", v3}, {"v2", v3}, {"u0", v3}, {"u1", v3}, {"u2", v3}}, "int32",
              "1 when triangles (v0, v1, v2) and (u0, u1, u2) intersect, coplanar ones when they overlap in their "
              "plane, else 0 (Moller's test, as Warp's).");
    for (const char *sfx : {"", "d"}) {
        const std::string v3 = std::string("vec3") + sfx, s = *sfx ? "float64" : "float32";
        r.add("closest_point_edge_edge", {{"p1", v3}, {"q1", v3}, {"p2", v3}, {"q2", v3}, {"epsilon", s}}, v3,
              "Closest points of segments p1-q1 and p2-q2 as (s, t, distance): the points p1 + s (q1 - p1) and "
              "p2 + t (q2 - p2); a segment whose squared length is at most epsilon is a point (Warp's, with its "
              "analytic gradient; Warp has the float32 one).");
    }
    r.generic("quat_identity", "quat_identity(dtype: type = float32) -> quat", "The identity rotation (0, 0, 0, 1).");
    r.generic("zeros", "zeros(shape: int | (int, ...), dtype: type) -> array(dtype, len(shape))",
              "A zeroed array of a constant shape (1 to 4 dimensions, at most 64 KiB) in the frame of the function "
              "that makes it (Warp's fixed-size array): indexed, sliced and passed to functions like any array.");
    r.generic("quat_to_axis_angle", "quat_to_axis_angle(quat: quat) -> (vec3, float32)",
              "The rotation axis (flipped when w < 0) and angle in [0, pi] of quat, unpacked as axis, angle = "
              "quat_to_axis_angle(q); also quat_to_axis_angle(q, axis, angle) into two locals (Warp's forms).");
    r.generic("transform_identity", "transform_identity(dtype: type = float32) -> transform",
              "The identity transform: zero translation, rotation (0, 0, 0, 1).");

    r.generic("tid", "tid() -> int32 | (int32, int32[, int32[, int32]])",
              "The thread index: one int32 for a 1-D launch, or a tuple unpacked as i, j = tid().");
    r.generic("len", "len(a: array(T)) -> int32", "Length of the first dimension of a (also vectors: their size).");
    r.generic("select", "select(cond: bool, a: T, b: T) -> T", "Returns a when cond is false, else b (Warp order).");
    r.generic("where", "where(cond: bool, a: T, b: T) -> T", "Returns a when cond is true, else b.");
    for (const char *op : {"atomic_add", "atomic_sub", "atomic_min", "atomic_max"})
        r.generic(op, std::string(op) + "(arr: array(T), i: int32..., value: T) -> T",
                  std::string("Atomically applies ") + (op + 7) + " to arr[i...] and returns the old value.");
    for (const char *op : {"atomic_and", "atomic_or", "atomic_xor"})
        r.generic(op, std::string(op) + "(arr: array(T), i: int32..., value: T) -> T",
                  std::string("Atomically sets arr[i...] to arr[i...] ") + (op + 7) +
                      " value (bitwise; T an [u]int32 or [u]int64 scalar or vector) and returns the old value.");
    r.generic("atomic_exch", "atomic_exch(arr: array(T), i: int32..., value: T) -> T",
              "Atomically sets arr[i...] to value (T an [u]int32, [u]int64, float32 or float64 scalar or vector) and "
              "returns the old value.");
    r.generic("atomic_cas", "atomic_cas(arr: array(T), i: int32..., compare: T, value: T) -> T",
              "Atomically sets arr[i...] to value where it equals compare (==, as Warp's CPU code; T an [u]int32, "
              "[u]int64, float32 or float64 scalar) and returns the old value.");
    r.generic("print", "print(value, ...) -> void", "Prints its arguments from the kernel (printf-style).");
    r.generic("expect_eq", "expect_eq(a: T, b: T) -> void",
              "Reports the kernel, line and both values when a != b, and fails the launch.");
    r.generic("expect_neq", "expect_neq(a: T, b: T) -> void",
              "Reports the kernel, line and both values when a == b, and fails the launch.");
    r.generic("expect_near", "expect_near(a: T, b: T, tolerance: float32 = 1e-6) -> void",
              "Reports the kernel, line and both values when |a - b| > tolerance, and fails the launch.");
    r.generic("identity", "identity(n: int, dtype: type) -> matNN", "The n x n identity matrix of dtype.");

    // Tiles (Warp's tile model; typed by the checker, check_tiles.cpp). Shapes are compile-time constants.
    r.generic("block_dim", "block_dim() -> int32",
              "Threads per block of a tiled launch (LaunchOptions::block_dim); 1 in other CPU launches, as Warp.");
    const std::pair<const char *, const char *> tile_ops[] = {
        {"tile_zeros(shape, dtype=float32, storage=\"register\") -> tile", "A tile of zeros."},
        {"tile_ones(shape, dtype=float32, storage=\"register\") -> tile", "A tile of ones."},
        {"tile_full(shape, value, dtype=type(value), storage=\"register\") -> tile", "A tile of one value."},
        {"tile_empty(shape, dtype=float32, storage=\"register\") -> tile", "A tile (weft zeroes it)."},
        {"tile_arange([start,] stop[, step], dtype=float32) -> tile", "A 1-D tile start, start + step, ... below stop."},
        {"tile_load(a, shape, offset=0, storage=\"register\", bounds_check=True) -> tile",
         "The elements of array a from offset; those outside a read as zero."},
        {"tile_store(a, t, offset=0) -> void", "Writes t into array a from offset; elements outside a are skipped."},
        {"tile_atomic_add(a, t, offset=0) -> tile", "Atomically adds t into a from offset; returns the old values."},
        {"tile_transpose(a) -> tile", "The transpose of a 2-D tile."},
        {"tile_broadcast(a, shape) -> tile", "a broadcast to shape (numpy.broadcast_to)."},
        {"tile_reshape(t, shape) -> tile", "t's elements, row-major, in another shape of the same size."},
        {"tile_astype(t, dtype) -> tile", "t's elements converted to dtype."},
        {"tile_extract(a, i[, j]) -> scalar", "One element of a tile (also t[i, j])."},
        {"tile_sum(a[, axis]) -> tile", "The sum of the elements, a (1,) tile (or along axis)."},
        {"tile_min(a) -> tile", "The smallest element, a (1,) tile."},
        {"tile_max(a) -> tile", "The largest element, a (1,) tile."},
        {"tile_argmin(a) -> tile", "The row-major index of the smallest element (the first), an int32 (1,) tile."},
        {"tile_argmax(a) -> tile", "The row-major index of the largest element (the first), an int32 (1,) tile."},
        {"tile_reduce(op, a) -> tile", "op folded over the elements, a (1,) tile."},
        {"tile_map(op, a, *args) -> tile", "op applied per element (tiles of a's shape, or values broadcast)."},
        {"tile_scan_inclusive(a) -> tile", "Running sums, row-major, each including its element."},
        {"tile_scan_exclusive(a) -> tile", "Running sums, row-major, each excluding its element."},
        {"tile_matmul(a, b[, out], alpha=1.0, beta=1.0) -> tile | void",
         "alpha a b (M x K times K x N); with out: out = alpha a b + beta out."},
        {"tile_dot(a, b) -> tile", "The sum of the element-wise products, a (1,) tile."},
        {"tile_axpy(alpha, src, dest) -> void", "dest += alpha src."},
    };
    for (const auto &[signature, doc] : tile_ops) {
        const std::string sig(signature);
        r.generic(sig.substr(0, sig.find('(')), sig, doc);
    }
    tx.commit();
}

} // namespace weft
