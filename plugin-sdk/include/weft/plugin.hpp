// weft plugin SDK: header-only C++ layer over the C ABI in plugin.h.
//
// What it adds over the C header:
//  - native types described from a real C++ struct: size, alignment, field
//    offsets and field sizes come from the compiler (sizeof/alignof/offsetof),
//    never from hand-typed numbers;
//  - builtins declared with typed C++ signatures (`Color(Color, float)`), the
//    kernel type names derived from the C++ types, and the C++ types' sizes
//    checked against the kernel types' (at compile time where the SDK knows
//    the kernel type's size, by the host otherwise);
//  - mirrors of weft's runtime types (vec_t, mat_t, quat_t, array_t) to name
//    vector, matrix and array parameters in typed signatures;
//  - one macro, WEFT_PLUGIN, that defines both entry points and guarantees no
//    exception crosses the ABI.
//
// Everything lives in an inline namespace keyed on the ABI version, so a
// plugin that mixes objects built against two incompatible SDKs fails to link
// instead of misbehaving.
#ifndef WEFT_PLUGIN_HPP
#define WEFT_PLUGIN_HPP

#include "weft/plugin.h"

#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#define WEFT_SDK_DETAIL_CAT2(a, b) a##b
#define WEFT_SDK_DETAIL_CAT(a, b) WEFT_SDK_DETAIL_CAT2(a, b)

namespace weft::plugin {
inline namespace WEFT_SDK_DETAIL_CAT(abi_v, WEFT_ABI_VERSION) {

/// Thrown inside the plugin when the host rejects a call; WEFT_PLUGIN turns it
/// into a status and an error report, so it never leaves the plugin.
class Error : public std::runtime_error {
public:
    Error(weft_status status, const std::string &message)
        : std::runtime_error(message), status_(status) {}
    weft_status status() const noexcept { return status_; }

private:
    weft_status status_;
};

// ---------------------------------------------------------------------------
// Kernel type names for C++ types. Specialize with WEFT_KERNEL_TYPE for the
// plugin's own native types.
template <class T, class = void> struct kernel_type {};
#define WEFT_SDK_DETAIL_SCALAR(cpp, kernel_name)                                                   \
    template <> struct kernel_type<cpp> {                                                          \
        static const char *name() { return kernel_name; }                                          \
    };
WEFT_SDK_DETAIL_SCALAR(bool, "bool")
WEFT_SDK_DETAIL_SCALAR(std::int8_t, "int8")
WEFT_SDK_DETAIL_SCALAR(std::int16_t, "int16")
WEFT_SDK_DETAIL_SCALAR(std::int32_t, "int32")
WEFT_SDK_DETAIL_SCALAR(std::int64_t, "int64")
WEFT_SDK_DETAIL_SCALAR(std::uint8_t, "uint8")
WEFT_SDK_DETAIL_SCALAR(std::uint16_t, "uint16")
WEFT_SDK_DETAIL_SCALAR(std::uint32_t, "uint32")
WEFT_SDK_DETAIL_SCALAR(std::uint64_t, "uint64")
WEFT_SDK_DETAIL_SCALAR(float, "float32")
WEFT_SDK_DETAIL_SCALAR(double, "float64")
#undef WEFT_SDK_DETAIL_SCALAR

// ---------------------------------------------------------------------------
// weft's runtime types as typed signatures name them. Generated kernel code
// passes weft::vec_t<N, T>, weft::mat_t<R, C, T>, weft::quat_t<T> and
// weft::array_t<T> (from weft/rt/runtime.h, which every module includes); these
// mirrors have the same layout, so the plugin's typed signature states the
// kernel type and the size of what the native function receives.

/// N packed T: vec3 is 12 bytes, align 4.
template <int N, class T> struct vec_t {
    T c[N];
};
/// R rows of vec_t<C, T> (row-major).
template <int R, int C, class T> struct mat_t {
    vec_t<C, T> c[R];
};
/// x, y, z, w.
template <class T> struct quat_t {
    T c[4];
};
/// weft's 64-byte array view: { T *data; int32 shape[4]; int64 strides[4] (bytes); int32 ndim; }.
/// NDim is part of the kernel type (array(dtype=T, ndim=NDim)); kernel code
/// receives weft::array_t<T> for every NDim, with the run-time ndim in the view.
template <class T, int NDim = 1> struct array_t {
    static_assert(NDim >= 1 && NDim <= 4, "weft arrays have 1 to 4 dimensions");
    T *data;
    std::int32_t shape[4];
    std::int64_t strides[4];
    std::int32_t ndim;
};
static_assert(sizeof(array_t<float>) == 64 && alignof(array_t<float>) == 8, "weft array view layout");

using vec2 = vec_t<2, float>;
using vec3 = vec_t<3, float>;
using vec4 = vec_t<4, float>;
using vec2d = vec_t<2, double>;
using vec3d = vec_t<3, double>;
using vec4d = vec_t<4, double>;
using vec2i = vec_t<2, std::int32_t>;
using vec3i = vec_t<3, std::int32_t>;
using vec4i = vec_t<4, std::int32_t>;
using mat22 = mat_t<2, 2, float>;
using mat33 = mat_t<3, 3, float>;
using mat44 = mat_t<4, 4, float>;
using mat22d = mat_t<2, 2, double>;
using mat33d = mat_t<3, 3, double>;
using mat44d = mat_t<4, 4, double>;
using quat = quat_t<float>;
using quatd = quat_t<double>;

namespace detail {
/// Suffix of a vector/matrix/quaternion kernel type name for a scalar.
template <class T> constexpr const char *composite_suffix() {
    if constexpr (std::is_same_v<T, float>) return "";
    else if constexpr (std::is_same_v<T, double>) return "d";
    else if constexpr (std::is_same_v<T, std::int32_t>) return "i";
    else return nullptr;
}

constexpr bool starts_with(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

constexpr std::uint64_t scalar_size(std::string_view n) {
    if (n == "bool" || n == "int8" || n == "uint8") return 1;
    if (n == "int16" || n == "uint16" || n == "float16" || n == "half" || n == "bfloat16") return 2;
    if (n == "int32" || n == "uint32" || n == "float32" || n == "int" || n == "float") return 4;
    if (n == "int64" || n == "uint64" || n == "float64") return 8;
    return 0;
}

/// Scalar size a composite's suffix names ("" and "f" float32, "d", "h", "i"); 0 for none.
constexpr std::uint64_t suffix_size(std::string_view suffix, bool int_allowed) {
    if (suffix.empty() || suffix == "f") return 4;
    if (suffix == "d") return 8;
    if (suffix == "h") return 2;
    if (suffix == "i" && int_allowed) return 4;
    return 0;
}

/// Size of a built-in kernel type named as the host parses it ("vec3", "mat33d",
/// "wp.quat", "array(float32)"); 0 for names the SDK cannot size (native types).
/// Mirrors the host's parser so WEFT_KERNEL_TYPE can check sizes at compile time.
constexpr std::uint64_t builtin_kernel_type_size(std::string_view n) {
    if (starts_with(n, "wp.")) n.remove_prefix(3);
    else if (starts_with(n, "warp.")) n.remove_prefix(5);
    if (const std::uint64_t s = scalar_size(n)) return s;
    auto dim = [](char c) { return c >= '2' && c <= '4'; };
    if (n.size() >= 4 && starts_with(n, "vec") && dim(n[3]))
        return std::uint64_t(n[3] - '0') * suffix_size(n.substr(4), true);
    if (n.size() >= 5 && starts_with(n, "mat") && dim(n[3]) && dim(n[4]))
        return std::uint64_t(n[3] - '0') * std::uint64_t(n[4] - '0') * suffix_size(n.substr(5), false);
    if (starts_with(n, "quat")) return 4 * suffix_size(n.substr(4), false);
    // The array view, whatever the dtype: array(...) and array1d(...)..array4d(...) only,
    // as the host parses them (a native type named "arrays::Grid" is not one).
    if (starts_with(n, "array(")) return 64;
    if (n.size() >= 8 && starts_with(n, "array") && n[5] >= '1' && n[5] <= '4' && n[6] == 'd' && n[7] == '(')
        return 64;
    return 0;
}

template <class M, class = void> struct has_kernel_type : std::false_type {};
template <class M>
struct has_kernel_type<M, std::void_t<decltype(kernel_type<std::remove_cv_t<M>>::name())>> : std::true_type {};
} // namespace detail

template <class T> const char *kernel_type_name() {
    static_assert(detail::has_kernel_type<T>::value,
                  "no kernel type name for this C++ type: name it with WEFT_KERNEL_TYPE(T, \"name\")");
    return kernel_type<std::remove_cv_t<T>>::name();
}

template <int N, class T> struct kernel_type<vec_t<N, T>, std::enable_if_t<detail::composite_suffix<T>() != nullptr>> {
    static const char *name() {
        static const std::string n = "vec" + std::to_string(N) + detail::composite_suffix<T>();
        return n.c_str();
    }
};
template <int R, int C, class T>
struct kernel_type<mat_t<R, C, T>, std::enable_if_t<(std::is_same_v<T, float> || std::is_same_v<T, double>)>> {
    static const char *name() {
        static const std::string n = "mat" + std::to_string(R) + std::to_string(C) + detail::composite_suffix<T>();
        return n.c_str();
    }
};
template <class T> struct kernel_type<quat_t<T>, std::enable_if_t<(std::is_same_v<T, float> || std::is_same_v<T, double>)>> {
    static const char *name() {
        static const std::string n = std::string("quat") + detail::composite_suffix<T>();
        return n.c_str();
    }
};
template <class T, int NDim>
struct kernel_type<array_t<T, NDim>, std::enable_if_t<detail::has_kernel_type<T>::value>> {
    static const char *name() {
        static const std::string n = std::string("array(dtype=") + kernel_type_name<T>() +
                                     (NDim == 1 ? std::string() : ", ndim=" + std::to_string(NDim)) + ")";
        return n.c_str();
    }
};

/// Result type of a builtin: nullptr for void.
template <class R> const char *result_type_name() {
    if constexpr (std::is_void_v<R>) {
        return nullptr;
    } else {
        return kernel_type_name<R>();
    }
}

/// A zero-initialized ABI struct with its struct_size set.
template <class T> T make_desc() {
    T d{};
    d.struct_size = sizeof(T);
    return d;
}

// ---------------------------------------------------------------------------
/// One declared data member, measured by the compiler. Build with WEFT_FIELD.
struct Field {
    std::string name;
    std::uint64_t offset;
    std::uint64_t size;
    std::string type; // kernel type deduced from the member's C++ type, "" if none
};

namespace detail {
template <class M> std::string type_name_if_known() {
    if constexpr (has_kernel_type<M>::value) {
        return kernel_type<std::remove_cv_t<M>>::name();
    } else {
        return {};
    }
}
} // namespace detail

/// Description of a native type, taken from the C++ struct T itself.
template <class T> class NativeType {
    static_assert(std::is_trivially_copyable_v<T>, "weft native types must be trivially copyable");
    static_assert(std::is_standard_layout_v<T>, "weft native types must be standard layout");

public:
    NativeType(std::string native_name, std::initializer_list<Field> declared)
        : native_name_(std::move(native_name)), declared_(declared) {}

    /// Expose a declared field to kernels with the kernel type deduced from its C++ type.
    NativeType &expose(const std::string &name) {
        for (const Field &f : declared_)
            if (f.name == name) return expose(name, f.type);
        return expose(name, std::string{}); // the host reports the undeclared field
    }
    /// Expose a declared field with an explicit kernel type name.
    NativeType &expose(const std::string &name, const std::string &type) {
        exposed_.emplace_back(name, type);
        return *this;
    }
    /// Expose every declared field, in declaration order.
    NativeType &expose_all() {
        for (const Field &f : declared_) expose(f.name, f.type);
        return *this;
    }
    NativeType &aggregate() {
        initializer_ = WEFT_INITIALIZER_AGGREGATE;
        return *this;
    }
    NativeType &doc(std::string text) {
        doc_ = std::move(text);
        return *this;
    }
    /// Values carry a gradient (weft_native_type_desc::differentiable): every
    /// exposed field is a float value, and the adjoint is a T holding their
    /// gradients. `accumulate`, when given, names void f(T &adjoint, const T &v).
    NativeType &differentiable(std::string accumulate = {}) {
        differentiable_ = true;
        accumulate_ = std::move(accumulate);
        return *this;
    }

    const std::string &native_name() const { return native_name_; }
    const std::vector<Field> &declared() const { return declared_; }
    const std::vector<std::pair<std::string, std::string>> &exposed() const { return exposed_; }
    weft_initializer initializer() const { return initializer_; }
    const std::string &doc_text() const { return doc_; }
    bool is_differentiable() const { return differentiable_; }
    const std::string &adjoint_accumulate() const { return accumulate_; }
    static constexpr std::uint64_t size() { return sizeof(T); }
    static constexpr std::uint64_t alignment() { return alignof(T); }

private:
    std::string native_name_;
    std::vector<Field> declared_;
    std::vector<std::pair<std::string, std::string>> exposed_;
    weft_initializer initializer_ = WEFT_INITIALIZER_NONE;
    std::string doc_;
    bool differentiable_ = false;
    std::string accumulate_;
};

/// Build options for every module that uses the plugin.
struct BuildOptions {
    std::vector<std::string> cuda_include_dirs;
    std::vector<std::string> cpu_include_dirs;
    std::string cuda_preamble;
    std::string cpu_preamble;
    std::vector<std::string> build_dependencies;
};

// ---------------------------------------------------------------------------
/// Wraps the host API handed to init. Each call throws Error when the host
/// rejects it; WEFT_PLUGIN catches it.
/// A builtin's gradient contract (see weft_builtin_desc::adjoint_native): the
/// qualified name of its adjoint, void adj(Args..., Args &..., R adj_result).
struct Adjoint {
    std::string native_name;
};

// ---------------------------------------------------------------------------
// Host objects (weft_object_type_desc): a C++ class T becomes an object type.
// T has
//   T(ObjectContext &ctx, const ObjectArgs &args);  // throws Error to refuse
//   std::uint64_t id() const;                       // what kernels receive
//   void release(ObjectContext &ctx);               // frees what it allocated
// and methods void T::m(ObjectContext &, const ObjectArgs &). The object
// itself lives in host memory from the host's callbacks, so the host accounts
// for every byte an object holds; no exception leaves the plugin.

/// Memory on the object's device and the host's, through the host's callbacks.
class ObjectContext {
public:
    explicit ObjectContext(const weft_object_api *api) : api_(api) {}
    bool is_cuda() const { return api_->device_is_cuda != 0; }
    std::string device() const { return api_->device ? api_->device : ""; }
    /// Zero-filled device memory; throws Error when the device cannot.
    void *device_alloc(std::uint64_t bytes) const {
        void *p = api_->device_alloc(api_->ctx, bytes);
        if (!p) throw Error(WEFT_ERROR_PLUGIN, "cannot allocate " + std::to_string(bytes) + " bytes on " + device());
        return p;
    }
    void device_free(void *p) const { api_->device_free(api_->ctx, p); }
    void *host_alloc(std::uint64_t bytes) const {
        void *p = api_->host_alloc(api_->ctx, bytes);
        if (!p) throw Error(WEFT_ERROR_PLUGIN, "cannot allocate " + std::to_string(bytes) + " bytes of host memory");
        return p;
    }
    void host_free(void *p) const { api_->host_free(api_->ctx, p); }
    void copy(void *dst, const void *src, std::uint64_t bytes, weft_copy_kind kind) const {
        if (api_->copy(api_->ctx, dst, src, bytes, kind) != WEFT_OK) throw Error(WEFT_ERROR_PLUGIN, "device copy failed");
    }
    /// Device memory holding a copy of `count` host values.
    template <class V> V *upload(const V *values, std::size_t count) const {
        auto *d = static_cast<V *>(device_alloc(sizeof(V) * count));
        copy(d, values, sizeof(V) * count, WEFT_COPY_HOST_TO_DEVICE);
        return d;
    }
    /// `count` values from device memory into host memory.
    template <class V> void download(V *out, const V *device_values, std::size_t count) const {
        copy(out, device_values, sizeof(V) * count, WEFT_COPY_DEVICE_TO_HOST);
    }
    const weft_object_api &api() const { return *api_; }

private:
    const weft_object_api *api_;
};

/// The arguments of one constructor or method call, by parameter name (the
/// host checked each against its declared type already).
class ObjectArgs {
public:
    ObjectArgs(const weft_object_arg *args, std::uint32_t count) : args_(args), count_(count) {}
    /// Whether an optional parameter was given.
    bool has(std::string_view name) const { return find(name).kind != WEFT_VALUE_NONE; }
    std::int64_t integer(std::string_view name) const { return get(name, WEFT_VALUE_INT).int_value; }
    double number(std::string_view name) const { return get(name, WEFT_VALUE_FLOAT).float_value; }
    bool flag(std::string_view name) const { return get(name, WEFT_VALUE_BOOL).int_value != 0; }
    std::string string(std::string_view name) const { return get(name, WEFT_VALUE_STRING).string_value; }
    const weft_array_arg &array(std::string_view name) const { return *get(name, WEFT_VALUE_ARRAY).array; }
    /// A 1-D array's elements as V (the host checked the dtype; its size is checked here).
    template <class V> const V *elements(std::string_view name, std::int64_t *count) const {
        const weft_array_arg &a = array(name);
        if (a.dtype_size != sizeof(V))
            throw Error(WEFT_ERROR_INVALID_ARGUMENT, std::string(name) + ": elements of " + std::to_string(a.dtype_size) +
                                                         " bytes, expected " + std::to_string(sizeof(V)));
        std::int64_t n = 1;
        for (std::uint32_t i = 0; i < a.ndim; ++i) n *= a.shape[i];
        // Contiguous only: objects copy their inputs, and a strided view would read gaps.
        std::int64_t stride = static_cast<std::int64_t>(sizeof(V));
        for (std::uint32_t i = a.ndim; i-- > 0;) {
            if (a.shape[i] > 1 && a.strides[i] != stride)
                throw Error(WEFT_ERROR_INVALID_ARGUMENT, std::string(name) + ": the array must be contiguous");
            stride *= a.shape[i];
        }
        *count = n;
        return reinterpret_cast<const V *>(static_cast<std::uintptr_t>(a.data));
    }
    std::uint64_t object_id(std::string_view name) const { return get(name, WEFT_VALUE_OBJECT).object_id; }
    /// Another object of this plugin's type T (nullptr when it is another plugin's).
    template <class T> T *object(std::string_view name) const {
        return static_cast<T *>(get(name, WEFT_VALUE_OBJECT).object);
    }

private:
    const weft_object_arg &find(std::string_view name) const {
        for (std::uint32_t i = 0; i < count_; ++i)
            if (args_[i].name && name == args_[i].name) return args_[i];
        throw Error(WEFT_ERROR_INVALID_ARGUMENT, "no parameter '" + std::string(name) + "' declared");
    }
    const weft_object_arg &get(std::string_view name, weft_value_kind kind) const {
        const weft_object_arg &a = find(name);
        if (a.kind == WEFT_VALUE_NONE) throw Error(WEFT_ERROR_INVALID_ARGUMENT, std::string(name) + ": not given");
        if (a.kind != kind) throw Error(WEFT_ERROR_INVALID_ARGUMENT, std::string(name) + ": another kind of value");
        return a;
    }
    const weft_object_arg *args_;
    std::uint32_t count_;
};

/// A declared parameter: ObjectParam{"points", "array(dtype=vec3)"}.
struct ObjectParam {
    std::string name;
    std::string type;
    bool optional = false;
    /// An array the object keeps using after the call (WEFT_OBJECT_PARAM_RETAIN).
    bool retain = false;
    std::string doc = {};
};

namespace detail {
inline weft_status object_failure(const weft_object_api *api) noexcept {
    try {
        throw;
    } catch (const Error &e) {
        api->set_error(api->ctx, e.what());
        return e.status() == WEFT_OK ? WEFT_ERROR_PLUGIN : e.status();
    } catch (const std::exception &e) {
        api->set_error(api->ctx, e.what());
        return WEFT_ERROR_PLUGIN;
    } catch (...) {
        api->set_error(api->ctx, "uncaught non-standard exception");
        return WEFT_ERROR_PLUGIN;
    }
}

template <class T>
weft_status create_object(const weft_object_api *api, const weft_object_arg *args, std::uint32_t n, void **object,
                          std::uint64_t *id) noexcept {
    static_assert(alignof(T) <= 64, "an object type's class must not need more than 64-byte alignment");
    void *memory = nullptr;
    try {
        ObjectContext ctx(api);
        memory = ctx.host_alloc(sizeof(T));
        T *t = new (memory) T(ctx, ObjectArgs(args, n));
        *object = t;
        *id = t->id();
        return WEFT_OK;
    } catch (...) {
        if (memory) api->host_free(api->ctx, memory);
        return object_failure(api);
    }
}

template <class T> void destroy_object(const weft_object_api *api, void *object) noexcept {
    T *t = static_cast<T *>(object);
    try {
        ObjectContext ctx(api);
        t->release(ctx);
    } catch (...) {
    }
    t->~T();
    api->host_free(api->ctx, object);
}

template <class T, void (T::*Method)(ObjectContext &, const ObjectArgs &)>
weft_status call_method(const weft_object_api *api, void *object, const weft_object_arg *args, std::uint32_t n,
                        std::uint64_t *id) noexcept {
    try {
        ObjectContext ctx(api);
        T *t = static_cast<T *>(object);
        (t->*Method)(ctx, ObjectArgs(args, n));
        *id = t->id();
        return WEFT_OK;
    } catch (...) {
        return object_failure(api);
    }
}
} // namespace detail

/// An object type described from its C++ class (see above).
template <class T> class ObjectType {
public:
    explicit ObjectType(std::string name) : name_(std::move(name)) {}
    ObjectType &doc(std::string text) {
        doc_ = std::move(text);
        return *this;
    }
    /// The constructor's parameters, in order.
    ObjectType &params(std::vector<ObjectParam> ps) {
        params_ = std::move(ps);
        return *this;
    }
    template <void (T::*Method)(ObjectContext &, const ObjectArgs &)>
    ObjectType &method(std::string name, std::vector<ObjectParam> ps = {}, std::string doc = {}) {
        methods_.push_back({std::move(name), std::move(ps), std::move(doc), &detail::call_method<T, Method>});
        return *this;
    }

    struct Method {
        std::string name;
        std::vector<ObjectParam> params;
        std::string doc;
        weft_object_method_fn call;
    };
    const std::string &name() const { return name_; }
    const std::string &doc_text() const { return doc_; }
    const std::vector<ObjectParam> &param_list() const { return params_; }
    const std::vector<Method> &methods() const { return methods_; }

private:
    std::string name_, doc_;
    std::vector<ObjectParam> params_;
    std::vector<Method> methods_;
};

class Registrar {
public:
    explicit Registrar(const weft_host_api *api) : api_(api) {}

    const weft_host_api &api() const { return *api_; }
    std::string plugin_directory() const { return api_->plugin_directory ? api_->plugin_directory : ""; }

    template <class T> void add(const NativeType<T> &type) {
        std::vector<weft_field_desc> fields;
        fields.reserve(type.declared().size());
        for (const Field &f : type.declared()) {
            auto d = make_desc<weft_field_desc>();
            d.name = f.name.c_str();
            d.offset = f.offset;
            d.size = f.size;
            fields.push_back(d);
        }
        std::vector<weft_exposed_field_desc> exposed;
        exposed.reserve(type.exposed().size());
        for (const auto &[name, kernel_type] : type.exposed()) {
            auto d = make_desc<weft_exposed_field_desc>();
            d.name = name.c_str();
            d.type = kernel_type.c_str();
            exposed.push_back(d);
        }
        auto desc = make_desc<weft_native_type_desc>();
        desc.native_name = type.native_name().c_str();
        desc.size = type.size();
        desc.alignment = type.alignment();
        desc.fields = fields.data();
        desc.field_count = static_cast<std::uint32_t>(fields.size());
        desc.exposed = exposed.data();
        desc.exposed_count = static_cast<std::uint32_t>(exposed.size());
        desc.initializer = type.initializer();
        desc.doc = type.doc_text().c_str();
        desc.differentiable = type.is_differentiable() ? 1u : 0u;
        desc.adjoint_accumulate = type.adjoint_accumulate().empty() ? nullptr : type.adjoint_accumulate().c_str();
        check(api_->register_native_type(api_->ctx, &desc));
    }

    /// Register a builtin from a typed signature: builtin<Color(Color, float)>(...).
    /// With an Adjoint, the builtin is differentiable in kernels.
    template <class Signature> void builtin(const std::string &name, std::initializer_list<const char *> param_names,
                                            const std::string &native_name, const std::string &doc = {},
                                            const Adjoint &adjoint = {}) {
        add_typed(static_cast<Signature *>(nullptr), name, param_names, native_name, doc, adjoint.native_name);
    }

    /// Register a builtin from the native function itself: its kernel
    /// signature is the function's own C++ type, checked when the plugin
    /// compiles (by-value parameters, each a type with a kernel_type), so a
    /// C++ int cannot be registered as int64. `native_name` must name this
    /// function as kernel code reaches it; WEFT_BUILTIN spells it from the
    /// function's own name. Prefer this form wherever the plugin's sources
    /// can see the native function.
    template <auto Function> void builtin_function(const std::string &name, std::initializer_list<const char *> param_names,
                                                   const std::string &native_name, const std::string &doc = {},
                                                   const Adjoint &adjoint = {}) {
        static_assert(std::is_pointer_v<decltype(Function)> &&
                          std::is_function_v<std::remove_pointer_t<decltype(Function)>>,
                      "builtin_function<&f>: f must be a function (an overload set needs a static_cast to one)");
        add_typed(Function, name, param_names, native_name, doc, adjoint.native_name);
    }

    /// Register a builtin from kernel type names; result "" means void. The
    /// host cannot check the C++ types' sizes here: prefer the typed form.
    void builtin(const std::string &name, const std::vector<std::pair<std::string, std::string>> &params,
                 const std::string &result, const std::string &native_name, const std::string &doc = {}) {
        register_builtin(name, params, std::vector<std::uint64_t>(params.size(), 0), result, 0, native_name, doc, {});
    }

    void add(const BuildOptions &options) {
        std::vector<const char *> cuda_dirs = c_strs(options.cuda_include_dirs);
        std::vector<const char *> cpu_dirs = c_strs(options.cpu_include_dirs);
        std::vector<const char *> deps = c_strs(options.build_dependencies);
        auto desc = make_desc<weft_build_options_desc>();
        desc.cuda_include_dirs = {cuda_dirs.data(), static_cast<std::uint32_t>(cuda_dirs.size())};
        desc.cpu_include_dirs = {cpu_dirs.data(), static_cast<std::uint32_t>(cpu_dirs.size())};
        desc.cuda_preamble = options.cuda_preamble.c_str();
        desc.cpu_preamble = options.cpu_preamble.c_str();
        desc.build_dependencies = {deps.data(), static_cast<std::uint32_t>(deps.size())};
        check(api_->add_build_options(api_->ctx, &desc));
    }

    /// Registers an object type (weft_register_object_type); Error with
    /// WEFT_ERROR_UNSUPPORTED from a host that has no host objects.
    template <class T> void add(const ObjectType<T> &type) {
        auto reg = reinterpret_cast<weft_register_object_type_fn>(api_->get_proc_address(WEFT_REGISTER_OBJECT_TYPE));
        if (!reg) throw Error(WEFT_ERROR_UNSUPPORTED, "this weft host has no host objects (" WEFT_REGISTER_OBJECT_TYPE ")");
        const auto param_descs = [](const std::vector<ObjectParam> &ps) {
            std::vector<weft_object_param_desc> out;
            for (const ObjectParam &p : ps) {
                auto d = make_desc<weft_object_param_desc>();
                d.name = p.name.c_str();
                d.type = p.type.c_str();
                d.flags = (p.optional ? WEFT_OBJECT_PARAM_OPTIONAL : 0u) | (p.retain ? WEFT_OBJECT_PARAM_RETAIN : 0u);
                d.doc = p.doc.c_str();
                out.push_back(d);
            }
            return out;
        };
        const std::vector<weft_object_param_desc> ctor = param_descs(type.param_list());
        std::vector<std::vector<weft_object_param_desc>> method_params;
        std::vector<weft_object_method_desc> methods;
        for (const auto &m : type.methods()) method_params.push_back(param_descs(m.params));
        for (std::size_t i = 0; i < type.methods().size(); ++i) {
            const auto &m = type.methods()[i];
            auto d = make_desc<weft_object_method_desc>();
            d.name = m.name.c_str();
            d.params = method_params[i].data();
            d.param_count = static_cast<std::uint32_t>(method_params[i].size());
            d.call = m.call;
            d.doc = m.doc.c_str();
            methods.push_back(d);
        }
        auto desc = make_desc<weft_object_type_desc>();
        desc.name = type.name().c_str();
        desc.doc = type.doc_text().c_str();
        desc.params = ctor.data();
        desc.param_count = static_cast<std::uint32_t>(ctor.size());
        desc.create = &detail::create_object<T>;
        desc.destroy = &detail::destroy_object<T>;
        desc.methods = methods.data();
        desc.method_count = static_cast<std::uint32_t>(methods.size());
        check(reg(api_->ctx, &desc));
    }

    void log(weft_log_level level, const std::string &message) const {
        api_->log(api_->ctx, level, message.c_str());
    }

private:
    template <class R, class... Args>
    void add_typed(R (*)(Args...), const std::string &name, std::initializer_list<const char *> param_names,
                   const std::string &native_name, const std::string &doc, const std::string &adjoint) {
        if (param_names.size() != sizeof...(Args))
            throw Error(WEFT_ERROR_INVALID_ARGUMENT,
                        "builtin '" + name + "': " + std::to_string(param_names.size()) + " parameter names for " +
                            std::to_string(sizeof...(Args)) + " parameters");
        static_assert(((std::is_same_v<Args, std::remove_cv_t<std::remove_reference_t<Args>>> ||
                        (std::is_lvalue_reference_v<Args> && !std::is_const_v<std::remove_reference_t<Args>>)) &&
                       ...),
                      "take builtin parameters by value, or by non-const reference (T &) for one the builtin "
                      "writes (an inout parameter: kernels pass a variable)");
        std::vector<std::pair<std::string, std::string>> params;
        const char *types[] = {kernel_type_name<std::remove_reference_t<Args>>()..., nullptr};
        std::size_t i = 0;
        for (const char *pname : param_names) {
            params.emplace_back(pname, types[i]);
            ++i;
        }
        const char *result = result_type_name<R>();
        std::uint64_t result_size = 0;
        if constexpr (!std::is_void_v<R>) result_size = sizeof(R);
        register_builtin(name, params, {std::uint64_t(sizeof(std::remove_reference_t<Args>))...},
                         result ? result : "", result_size, native_name, doc, adjoint,
                         {(std::is_lvalue_reference_v<Args> ? WEFT_PARAM_INOUT : 0u)...});
    }

    void register_builtin(const std::string &name, const std::vector<std::pair<std::string, std::string>> &params,
                          const std::vector<std::uint64_t> &sizes, const std::string &result, std::uint64_t result_size,
                          const std::string &native_name, const std::string &doc, const std::string &adjoint,
                          const std::vector<std::uint32_t> &flags = {}) {
        std::vector<weft_param_desc> descs;
        descs.reserve(params.size());
        for (std::size_t i = 0; i < params.size(); ++i) {
            auto d = make_desc<weft_param_desc>();
            d.name = params[i].first.c_str();
            d.type = params[i].second.c_str();
            d.cpp_size = sizes[i];
            d.flags = i < flags.size() ? flags[i] : 0u;
            descs.push_back(d);
        }
        auto desc = make_desc<weft_builtin_desc>();
        desc.name = name.c_str();
        desc.params = descs.data();
        desc.param_count = static_cast<std::uint32_t>(descs.size());
        desc.result_type = result.empty() ? nullptr : result.c_str();
        desc.native_name = native_name.empty() ? nullptr : native_name.c_str();
        desc.doc = doc.c_str();
        desc.result_cpp_size = result_size;
        desc.adjoint_native = adjoint.empty() ? nullptr : adjoint.c_str();
        check(api_->register_builtin(api_->ctx, &desc));
    }

    static std::vector<const char *> c_strs(const std::vector<std::string> &v) {
        std::vector<const char *> out;
        out.reserve(v.size());
        for (const std::string &s : v) out.push_back(s.c_str());
        return out;
    }

    void check(weft_status status) const {
        if (status != WEFT_OK) throw Error(status, api_->last_error(api_->ctx));
    }

    const weft_host_api *api_;
};

namespace detail {
inline weft_status run_init(const weft_host_api *api, void (*init)(Registrar &)) noexcept {
    try {
        Registrar registrar(api);
        init(registrar);
        return WEFT_OK;
    } catch (const Error &e) {
        api->report_error(api->ctx, e.what());
        return e.status();
    } catch (const std::exception &e) {
        api->report_error(api->ctx, (std::string("uncaught exception: ") + e.what()).c_str());
        return WEFT_ERROR_PLUGIN;
    } catch (...) {
        api->report_error(api->ctx, "uncaught non-standard exception");
        return WEFT_ERROR_PLUGIN;
    }
}
} // namespace detail

} // namespace abi_vN
} // namespace weft::plugin

/// Declares one data member of T, measured by the compiler.
#define WEFT_FIELD(T, member)                                                                      \
    ::weft::plugin::Field {                                                                        \
        #member, offsetof(T, member), sizeof(std::declval<T &>().member),                          \
            ::weft::plugin::detail::type_name_if_known<decltype(std::declval<T &>().member)>()     \
    }

/// Names the kernel type of a plugin's own C++ type, for typed signatures and
/// for nested native-type fields. Use at global scope. When the kernel type is
/// a built-in one ("vec3", "mat33", "float64", ...), sizeof(T) must equal its
/// size: a mismatch is a compile error here, not wrong bytes in a kernel.
/// r.builtin_function<&ns::fn>("name", {params...}, "ns::fn"): the builtin
/// `name` whose native function is `function`, signature and native name both
/// taken from the function itself (nothing to keep in step by hand):
///   WEFT_BUILTIN(r, "colors_scale", colors::scale, "value", "factor");
#define WEFT_BUILTIN(registrar, name, function, ...)                                               \
    (registrar).builtin_function<&function>(name, {__VA_ARGS__}, #function)

#define WEFT_KERNEL_TYPE(T, kernel_name)                                                           \
    template <> struct weft::plugin::kernel_type<T> {                                              \
        static_assert(::weft::plugin::detail::builtin_kernel_type_size(kernel_name) == 0 ||        \
                          ::weft::plugin::detail::builtin_kernel_type_size(kernel_name) == sizeof(T), \
                      "WEFT_KERNEL_TYPE(" #T ", " #kernel_name                                    \
                      "): sizeof the C++ type differs from the size of the kernel type");          \
        static const char *name() { return kernel_name; }                                          \
    };

/// Defines the plugin's two entry points. `init` is `void init(weft::plugin::Registrar&)`.
/// Use once, at global scope, in one source file of the plugin.
#define WEFT_PLUGIN(plugin_name, plugin_version, init)                                             \
    extern "C" WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {                 \
        static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION,          \
                                              plugin_name, plugin_version,                         \
                                              WEFT_SDK_VERSION_STRING};                            \
        return &info;                                                                              \
    }                                                                                              \
    extern "C" WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {         \
        return ::weft::plugin::detail::run_init(api, init);                                        \
    }

#endif // WEFT_PLUGIN_HPP
