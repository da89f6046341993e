// Host-side values of weft's kernel value types: vectors, matrices,
// quaternions and rigid transforms an application fills in C++ and passes to
// kernels (KernelArg) or stores in arrays (Array::from_vector, to_vector).
// Each has exactly the layout of the kernel type it names (the library ties
// them to the runtime headers' types with static_asserts), so no layout copy
// is needed, and each knows its kernel Type (type_of<T>()), so a wrong dtype
// is an error naming both types instead of a silent reinterpretation.
//
// They live in namespace weft::values, which the umbrella header weft/weft.hpp
// makes part of weft (weft::vec3f): weft's device runtime headers, which
// generated code and plugins' native code include, have typedefs of the same
// names in namespace weft (weft::vec3f is a vec_t<3, float32> there), so
// code that includes both names these weft::values::vec3f.
#pragma once

#include "weft/registry/types.hpp"

#include <cstdint>
#include <type_traits>

namespace weft {
namespace values {

/// vecN of T: N components, packed (Warp's wp.types.vector(length=N, dtype=T)).
template <int N, class T> struct vec {
    static_assert(N >= 1, "weft::vec: at least one component");
    T c[N]{};
    constexpr T &operator[](int i) { return c[i]; }
    constexpr const T &operator[](int i) const { return c[i]; }
    friend constexpr bool operator==(const vec &, const vec &) = default;
};

/// An R x C matrix of T, row-major (Warp's layout): m(r, c) or m[r][c].
template <int R, int C, class T> struct mat {
    static_assert(R >= 1 && C >= 1, "weft::mat: at least one row and one column");
    vec<C, T> rows[R]{};
    constexpr vec<C, T> &operator[](int r) { return rows[r]; }
    constexpr const vec<C, T> &operator[](int r) const { return rows[r]; }
    constexpr T &operator()(int r, int c) { return rows[r].c[c]; }
    constexpr const T &operator()(int r, int c) const { return rows[r].c[c]; }
    friend constexpr bool operator==(const mat &, const mat &) = default;
};

/// A quaternion x, y, z, w (Warp's order: the real part last). Zero when
/// default-constructed, as the kernel type is; identity() is (0, 0, 0, 1).
template <class T> struct quat {
    T x{}, y{}, z{}, w{};
    static constexpr quat identity() { return {T(0), T(0), T(0), T(1)}; }
    friend constexpr bool operator==(const quat &, const quat &) = default;
};

/// A rigid transform: translation p, then rotation q (Warp's transform_t).
template <class T> struct transform {
    vec<3, T> p{};
    quat<T> q{};
    static constexpr transform identity() { return {{}, quat<T>::identity()}; }
    friend constexpr bool operator==(const transform &, const transform &) = default;
};

using vec2f = vec<2, float>;
using vec3f = vec<3, float>;
using vec4f = vec<4, float>;
using vec2d = vec<2, double>;
using vec3d = vec<3, double>;
using vec4d = vec<4, double>;
using vec2i = vec<2, std::int32_t>;
using vec3i = vec<3, std::int32_t>;
using vec4i = vec<4, std::int32_t>;
using mat22f = mat<2, 2, float>;
using mat33f = mat<3, 3, float>;
using mat44f = mat<4, 4, float>;
using mat22d = mat<2, 2, double>;
using mat33d = mat<3, 3, double>;
using mat44d = mat<4, 4, double>;
using quatf = quat<float>;
using quatd = quat<double>;
using transformf = transform<float>;
using transformd = transform<double>;

} // namespace values

namespace detail {
/// The kernel scalar a C++ arithmetic type is; Bool for any other type (value_type<T> rejects those).
template <class T> constexpr Scalar scalar_of() {
    if constexpr (std::is_same_v<T, bool>) return Scalar::Bool;
    else if constexpr (std::is_same_v<T, float>) return Scalar::Float32;
    else if constexpr (std::is_same_v<T, double>) return Scalar::Float64;
    else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
        return sizeof(T) == 1   ? Scalar::Int8
               : sizeof(T) == 2 ? Scalar::Int16
               : sizeof(T) == 4 ? Scalar::Int32
                                : Scalar::Int64;
    else
        return sizeof(T) == 1   ? Scalar::UInt8
               : sizeof(T) == 2 ? Scalar::UInt16
               : sizeof(T) == 4 ? Scalar::UInt32
                                : Scalar::UInt64;
}
template <class T> constexpr bool is_kernel_scalar_v =
    std::is_same_v<T, bool> || std::is_same_v<T, float> || std::is_same_v<T, double> ||
    (std::is_integral_v<T> && !std::is_same_v<T, char> && !std::is_same_v<T, wchar_t> && !std::is_same_v<T, char8_t> &&
     !std::is_same_v<T, char16_t> && !std::is_same_v<T, char32_t>);

template <class T> struct value_type_of : std::false_type {};
template <int N, class T> struct value_type_of<values::vec<N, T>> : std::bool_constant<is_kernel_scalar_v<T>> {
    static Type get() { return Type::vector(scalar_of<T>(), N); }
};
template <int R, int C, class T> struct value_type_of<values::mat<R, C, T>> : std::bool_constant<is_kernel_scalar_v<T>> {
    static Type get() { return Type::matrix(scalar_of<T>(), R, C); }
};
template <class T>
struct value_type_of<values::quat<T>> : std::bool_constant<is_kernel_scalar_v<T> && std::is_floating_point_v<T>> {
    static Type get() { return Type::quaternion(scalar_of<T>()); }
};
template <class T>
struct value_type_of<values::transform<T>> : std::bool_constant<is_kernel_scalar_v<T> && std::is_floating_point_v<T>> {
    static Type get() { return Type::transform(scalar_of<T>()); }
};
} // namespace detail

/// Whether T is a C++ type whose kernel type weft knows: a scalar (bool,
/// float, double, a fixed-width integer) or one of the value types above.
template <class T> inline constexpr bool is_kernel_value_v =
    detail::is_kernel_scalar_v<T> || detail::value_type_of<T>::value;

/// The kernel type of a C++ value type: float -> float32, vec3f -> vec3,
/// mat33d -> mat33d, quatf -> quat, transformd -> transformd.
template <class T> Type type_of() {
    static_assert(is_kernel_value_v<T>, "weft::type_of: T is not a kernel value type");
    if constexpr (detail::is_kernel_scalar_v<T>) return Type::scalar(detail::scalar_of<T>());
    else return detail::value_type_of<T>::get();
}

} // namespace weft
