// The C functions behind weft_host_api. Each copies what the plugin passes
// (nothing is kept by reference), stages it in the plugin's transaction, and
// turns every C++ exception into a status plus last_error: no exception
// crosses the ABI.
#include "loader_internal.hpp"
#include "objects.hpp"

#include "weft/support/error.hpp"
#include "weft/support/text.hpp"
#include "weft/support/version.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace weft {

namespace {

template <class T> constexpr const char *abi_struct_name() {
    if constexpr (std::is_same_v<T, weft_builtin_desc>) return "weft_builtin_desc";
    else if constexpr (std::is_same_v<T, weft_param_desc>) return "weft_param_desc";
    else if constexpr (std::is_same_v<T, weft_native_type_desc>) return "weft_native_type_desc";
    else if constexpr (std::is_same_v<T, weft_field_desc>) return "weft_field_desc";
    else if constexpr (std::is_same_v<T, weft_exposed_field_desc>) return "weft_exposed_field_desc";
    else if constexpr (std::is_same_v<T, weft_build_options_desc>) return "weft_build_options_desc";
    else if constexpr (std::is_same_v<T, weft_object_type_desc>) return "weft_object_type_desc";
    else if constexpr (std::is_same_v<T, weft_object_method_desc>) return "weft_object_method_desc";
    else if constexpr (std::is_same_v<T, weft_object_param_desc>) return "weft_object_param_desc";
    else static_assert(sizeof(T) == 0, "abi_struct_name: unknown ABI struct");
}

/// Copies a versioned struct: only what struct_size covers, the rest zero.
/// Bytes past what this host knows are accepted only when zero (Linux's
/// copy_struct_from_user rule): a newer plugin may leave a newer field at its
/// default, but a field it set would be silently ignored, so that is an error.
template <class T> T read_struct(const T *p, const char *what) {
    if (!p) throw RegistrationError(RegistrationError::Kind::Invalid, std::string(what) + " is NULL");
    std::uint32_t size = 0;
    std::memcpy(&size, p, sizeof size);
    if (size < sizeof(std::uint32_t))
        throw RegistrationError(RegistrationError::Kind::Invalid,
                                std::string(what) + ": struct_size " + std::to_string(size) + " is too small");
    // A garbage struct_size (an unset field in C) must not send the zero-tail
    // scan through gigabytes of memory: no descriptor grows past a page.
    constexpr std::uint32_t max_struct_size = 4096;
    if (size > max_struct_size)
        throw RegistrationError(RegistrationError::Kind::Invalid,
                                std::string(what) + ": " + abi_struct_name<T>() + " has struct_size " +
                                    std::to_string(size) + ", more than the " + std::to_string(max_struct_size) +
                                    " bytes any version of it can have (is struct_size set?)");
    const auto *bytes = reinterpret_cast<const unsigned char *>(p);
    for (std::size_t i = sizeof(T); i < size; ++i)
        if (bytes[i] != 0)
            throw RegistrationError(RegistrationError::Kind::Invalid,
                                    std::string(what) + ": " + abi_struct_name<T>() + " has struct_size " +
                                        std::to_string(size) + ", larger than the " + std::to_string(sizeof(T)) +
                                        " bytes this host knows, and byte " + std::to_string(i) +
                                        " is not zero (a field this host does not support is set)");
    T out{};
    std::memcpy(&out, p, std::min<std::size_t>(size, sizeof(T)));
    return out;
}

/// Visits an array of versioned structs, each read by read_struct's rule, as
/// visit(index, item); the stride is the first element's struct_size.
template <class T, class Visit> void for_each_struct(const T *items, std::uint32_t count, const char *what, Visit &&visit) {
    if (count == 0) return;
    if (!items)
        throw RegistrationError(RegistrationError::Kind::Invalid,
                                std::string(what) + " is NULL but its count is " + std::to_string(count));
    const std::uint32_t stride = read_struct(items, what).struct_size;
    const auto *base = reinterpret_cast<const unsigned char *>(items);
    for (std::uint32_t i = 0; i < count; ++i) {
        const T item = read_struct(reinterpret_cast<const T *>(base + std::size_t(i) * stride), what);
        // The stride is the array's layout: an element claiming another size would be read across its neighbour.
        if (item.struct_size != stride)
            throw RegistrationError(RegistrationError::Kind::Invalid,
                                    std::string(what) + "[" + std::to_string(i) + "]: struct_size " +
                                        std::to_string(item.struct_size) + " differs from element 0's " +
                                        std::to_string(stride) + " (one array, one struct version)");
        visit(i, item);
    }
}

/// Reads an array of versioned structs (for_each_struct into a vector).
template <class T> std::vector<T> read_array(const T *items, std::uint32_t count, const char *what) {
    std::vector<T> out;
    for_each_struct(items, count, what, [&](std::uint32_t, const T &item) { out.push_back(item); });
    return out;
}

// The readers below take the field's name as a callable, `what()`, called only
// to build an error message: register_builtin runs once per builtin, and
// composing "builtin 'NAME': parameter type" for every field up front was most
// of its allocations (bench/plugin_load).

/// Copies a plugin's string into `out` (reusing its buffer) once it is checked
/// to be UTF-8; NULL gives "".
template <class What> void assign_checked(std::string &out, std::string_view text, const char *s, What &&what) {
    if (find_invalid_utf8(text) != std::string_view::npos) string_from_plugin(s, what()); // throws, naming the field
    // clear + append: assign() is replace(), whose aliasing checks cost more
    // than copying the few bytes of a name (bench/plugin_load).
    out.clear();
    out.append(text);
}

template <class What> void assign_from_plugin(std::string &out, const char *s, What &&what) {
    if (!s) {
        out.clear();
        return;
    }
    assign_checked(out, std::string_view(s), s, what);
}

std::string str(const char *s, const std::string &what) { return string_from_plugin(s, what); }

std::string required(const char *s, const std::string &what) {
    if (!s) throw RegistrationError(RegistrationError::Kind::Invalid, what + " is NULL");
    return string_from_plugin(s, what);
}

template <class What> void assign_required(std::string &out, const char *s, What &&what) {
    if (!s) throw RegistrationError(RegistrationError::Kind::Invalid, what() + " is NULL");
    assign_from_plugin(out, s, what);
}

/// A kernel type name from a plugin, into `out`. Bounded before the registry
/// parses it, so a hostile name costs a fixed amount of work and its error
/// stays readable.
template <class What>
void assign_type_name(std::string &out, const char *s, What &&what,
                      InitSession::CheckedTypeNames *checked = nullptr) {
    constexpr std::size_t max_length = 1024;
    constexpr int max_depth = 4;
    if (!s) throw RegistrationError(RegistrationError::Kind::Invalid, what() + " is NULL");
    const std::size_t length = ::strnlen(s, max_length + 1);
    if (checked && checked->contains(std::string_view(s, length))) {
        out.clear();
        out.append(s, length);
        return;
    }
    if (length > max_length)
        throw RegistrationError(RegistrationError::Kind::Invalid,
                                what() + " is longer than the " + std::to_string(max_length) +
                                    " bytes a kernel type name may have (starts '" +
                                    escape_for_display(std::string_view(s, 40)) + "...')");
    int depth = 0;
    for (std::size_t i = 0; i < length; ++i) {
        if (s[i] == '(' && ++depth > max_depth)
            throw RegistrationError(RegistrationError::Kind::Invalid,
                                    what() + " nests parentheses more than " + std::to_string(max_depth) +
                                        " deep, which no kernel type name does (starts '" +
                                        escape_for_display(std::string_view(s, std::min<std::size_t>(length, 40))) +
                                        "...')");
        if (s[i] == ')' && depth > 0) --depth;
    }
    assign_checked(out, std::string_view(s, length), s, what);
    if (checked) checked->add(out);
}

std::string type_name(const char *s, const std::string &what) {
    std::string out;
    assign_type_name(out, s, [&] { return what; });
    return out;
}

std::vector<std::string> read_strings(const weft_string_list &list, const char *what) {
    std::vector<std::string> out;
    if (list.count && !list.items)
        throw RegistrationError(RegistrationError::Kind::Invalid,
                                std::string(what) + ".items is NULL but its count is " + std::to_string(list.count));
    for (std::uint32_t i = 0; i < list.count; ++i)
        out.push_back(required(list.items[i], std::string(what) + "[" + std::to_string(i) + "]"));
    return out;
}

weft_status status_of(RegistrationError::Kind kind) {
    switch (kind) {
    case RegistrationError::Kind::Invalid: return WEFT_ERROR_INVALID_ARGUMENT;
    case RegistrationError::Kind::Conflict: return WEFT_ERROR_CONFLICT;
    case RegistrationError::Kind::Namespace: return WEFT_ERROR_NAMESPACE;
    case RegistrationError::Kind::UnknownType: return WEFT_ERROR_UNKNOWN_TYPE;
    }
    return WEFT_ERROR_INTERNAL;
}

constexpr const char *after_init_message =
    "a host function was called after weft_plugin_init returned: the host API accepts calls only during init";

/// Runs one host call for ctx: records success, or the rejection and its message.
template <class F> weft_status guarded(weft_host_context *ctx, F &&f) noexcept {
    if (!ctx) return WEFT_ERROR_INVALID_ARGUMENT;
    const std::lock_guard<std::mutex> lock(ctx->mutex);
    InitSession *session = ctx->session.get();
    if (!session) return WEFT_ERROR_UNSUPPORTED;
    try {
        ctx->last_error.clear();
        f(*session);
        return WEFT_OK;
    } catch (const RegistrationError &e) {
        ctx->last_error = e.what();
        session->rejected.push_back(e.what());
        session->logger->log(LogLevel::Debug, "registry", "plugin '" + session->plugin + "': rejected: " + e.what());
        return status_of(e.kind());
    } catch (const std::exception &e) {
        ctx->last_error = e.what();
        session->rejected.push_back(e.what());
        return WEFT_ERROR_INTERNAL;
    } catch (...) {
        ctx->last_error = "unknown error";
        session->rejected.push_back(ctx->last_error);
        return WEFT_ERROR_INTERNAL;
    }
}

static std::string hex_bits(std::uint32_t v) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    do {
        out.insert(out.begin(), digits[v & 0xF]);
        v >>= 4;
    } while (v);
    return out;
}

/// Reads a constructor's or method's parameters, checking names and types.
static std::vector<ObjectParam> object_params(InitSession &session, const weft_object_param_desc *items,
                                              std::uint32_t count, const std::string &what,
                                              std::vector<detail::ParamCheck> &checks) {
    std::vector<ObjectParam> out;
    for_each_struct(items, count, "object parameters", [&](std::uint32_t i, const weft_object_param_desc &p) {
        ObjectParam param;
        param.name = required(p.name, what + ": parameter " + std::to_string(i) + " name");
        if (!is_identifier(param.name))
            throw RegistrationError(RegistrationError::Kind::Invalid,
                                    what + ": parameter name '" + escape_for_display(param.name) + "' is not an identifier");
        for (const ObjectParam &q : out)
            if (q.name == param.name)
                throw RegistrationError(RegistrationError::Kind::Invalid, what + ": parameter '" + param.name + "' declared twice");
        param.type = required(p.type, what + ": parameter '" + param.name + "' type");
        if (p.flags & ~(WEFT_OBJECT_PARAM_OPTIONAL | WEFT_OBJECT_PARAM_RETAIN))
            throw RegistrationError(RegistrationError::Kind::Invalid,
                                    what + ": parameter '" + param.name + "': unknown flag bits 0x" +
                                        hex_bits(p.flags & ~(WEFT_OBJECT_PARAM_OPTIONAL | WEFT_OBJECT_PARAM_RETAIN)));
        param.optional = (p.flags & WEFT_OBJECT_PARAM_OPTIONAL) != 0;
        param.retain = (p.flags & WEFT_OBJECT_PARAM_RETAIN) != 0;
        param.doc = str(p.doc, what + ": parameter '" + param.name + "' doc");
        try {
            if (param.retain && param.type.rfind("array", 0) != 0)
                throw std::invalid_argument("'" + param.type + "', but only arrays can be retained");
            checks.push_back(detail::parse_param_type(
                [&](std::string_view t) { return session.transaction.parse_type(t); }, param.type));
        } catch (const std::invalid_argument &e) {
            throw RegistrationError(RegistrationError::Kind::UnknownType,
                                    what + ": parameter '" + param.name + "' has type " + e.what());
        }
        out.push_back(std::move(param));
    });
    return out;
}

extern "C" {

static weft_status api_register_native_type(weft_host_context *ctx, const weft_native_type_desc *d) {
    return guarded(ctx, [&](InitSession &session) {
        const weft_native_type_desc desc = read_struct(d, "native type descriptor");
        NativeTypeSpec spec;
        spec.native_name = required(desc.native_name, "native type descriptor: native_name");
        const std::string what = "native type '" + spec.native_name + "'";
        spec.size = desc.size;
        spec.alignment = desc.alignment;
        for (const weft_field_desc &f : read_array(desc.fields, desc.field_count, "native type fields"))
            spec.fields.push_back({required(f.name, what + ": field name"), f.offset, f.size, f.bit_width});
        for (const weft_exposed_field_desc &f : read_array(desc.exposed, desc.exposed_count, "native type exposed fields"))
            spec.exposed.push_back({required(f.name, what + ": exposed field name"),
                                    type_name(f.type, what + ": exposed field type")});
        if (desc.initializer != WEFT_INITIALIZER_NONE && desc.initializer != WEFT_INITIALIZER_AGGREGATE)
            throw RegistrationError(RegistrationError::Kind::Invalid,
                                    what + ": unknown initializer policy " + std::to_string(desc.initializer));
        spec.initializer = desc.initializer == WEFT_INITIALIZER_AGGREGATE ? Initializer::Aggregate : Initializer::None;
        spec.doc = str(desc.doc, what + ": doc");
        if (desc.reserved != 0)
            throw RegistrationError(RegistrationError::Kind::Invalid, what + ": reserved is " +
                                                                          std::to_string(desc.reserved) + "; it must be 0");
        if (desc.differentiable > 1)
            throw RegistrationError(RegistrationError::Kind::Invalid,
                                    what + ": differentiable is " + std::to_string(desc.differentiable) + "; 0 or 1");
        spec.differentiable = desc.differentiable == 1;
        spec.adjoint_accumulate = str(desc.adjoint_accumulate, what + ": adjoint_accumulate");
        session.transaction.add_native_type(spec);
    });
}

static weft_status api_register_builtin(weft_host_context *ctx, const weft_builtin_desc *d) {
    return guarded(ctx, [&](InitSession &session) {
        const weft_builtin_desc desc = read_struct(d, "builtin descriptor");
        // The session's spec is overwritten call after call: its strings keep
        // their buffers, so copying a plugin's strings seldom allocates.
        BuiltinSpec &spec = session.builtin_spec;
        assign_required(spec.name, desc.name, [] { return std::string("builtin descriptor: name"); });
        auto field = [&](const char *name) { return [&spec, name] { return "builtin '" + spec.name + "': " + name; }; };
        std::size_t params = 0;
        for_each_struct(desc.params, desc.param_count, "builtin parameters", [&](std::uint32_t, const weft_param_desc &p) {
            if (params == spec.params.size()) spec.params.emplace_back();
            ParameterSpec &out = spec.params[params++];
            assign_required(out.name, p.name, field("parameter name"));
            assign_type_name(out.type, p.type, field("parameter type"), &session.checked_type_names);
            out.cpp_size = p.cpp_size;
            if (p.flags & ~WEFT_PARAM_INOUT)
                throw RegistrationError(RegistrationError::Kind::Invalid,
                                        field("parameter flags")() + ": unknown bits 0x" + hex_bits(p.flags & ~WEFT_PARAM_INOUT));
            if (p.reserved != 0)
                throw RegistrationError(RegistrationError::Kind::Invalid, field("parameter reserved")() + " is not 0");
            out.inout = (p.flags & WEFT_PARAM_INOUT) != 0;
        });
        spec.params.resize(params);
        if (desc.result_type)
            assign_type_name(spec.result, desc.result_type, field("result_type"), &session.checked_type_names);
        else
            spec.result.clear();
        spec.result_cpp_size = desc.result_cpp_size;
        assign_from_plugin(spec.native_name, desc.native_name, field("native_name"));
        assign_from_plugin(spec.doc, desc.doc, field("doc"));
        assign_from_plugin(spec.adjoint_native, desc.adjoint_native, field("adjoint_native"));
        session.transaction.add_builtin(spec);
    });
}

static weft_status api_register_object_type(weft_host_context *ctx, const weft_object_type_desc *d) {
    return guarded(ctx, [&](InitSession &session) {
        const weft_object_type_desc desc = read_struct(d, "object type descriptor");
        ObjectTypeInfo info;
        info.name = required(desc.name, "object type descriptor: name");
        const std::string what = "object type '" + escape_for_display(info.name) + "'";
        if (!is_identifier(info.name))
            throw RegistrationError(RegistrationError::Kind::Invalid, what + ": the name is not an identifier");
        if (const auto &policy = session.transaction.policy()) {
            const auto &prefixes = policy->builtin_prefixes;
            const bool owned = std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string &p) {
                return info.name.rfind(p, 0) == 0 || (p.size() > 1 && p.back() == '_' && info.name == p.substr(0, p.size() - 1));
            });
            if (!owned) {
                std::string list;
                for (const std::string &p : prefixes) list += (list.empty() ? "'" : ", '") + p + "'";
                throw RegistrationError(RegistrationError::Kind::Namespace,
                                        what + ": name is outside the builtin prefixes the plugin owns (" +
                                            (list.empty() ? std::string("none declared") : list) + ")");
            }
        }
        for (const ObjectTypeInfo &t : session.object_types)
            if (t.name == info.name)
                throw RegistrationError(RegistrationError::Kind::Conflict, what + " registered twice");
        if (!desc.create || !desc.destroy)
            throw RegistrationError(RegistrationError::Kind::Invalid,
                                    what + ": " + (desc.create ? "destroy" : "create") + " is NULL");
        if (desc.reserved != 0)
            throw RegistrationError(RegistrationError::Kind::Invalid, what + ": reserved is not 0");
        info.plugin = session.plugin;
        info.doc = str(desc.doc, what + ": doc");
        auto impl = std::make_shared<detail::ObjectTypeImpl>();
        impl->create = desc.create;
        impl->destroy = desc.destroy;
        info.params = object_params(session, desc.params, desc.param_count, what + ", constructor", impl->params);
        for_each_struct(desc.methods, desc.method_count, "object methods", [&](std::uint32_t i, const weft_object_method_desc &m) {
            ObjectMethodInfo method;
            method.name = required(m.name, what + ": method " + std::to_string(i) + " name");
            if (!is_identifier(method.name))
                throw RegistrationError(RegistrationError::Kind::Invalid,
                                        what + ": method name '" + escape_for_display(method.name) + "' is not an identifier");
            if (info.method(method.name))
                throw RegistrationError(RegistrationError::Kind::Invalid, what + ": method '" + method.name + "' declared twice");
            if (!m.call)
                throw RegistrationError(RegistrationError::Kind::Invalid, what + ": method '" + method.name + "': call is NULL");
            impl->method_params.emplace_back();
            method.params = object_params(session, m.params, m.param_count, what + ", method '" + method.name + "'",
                                          impl->method_params.back());
            method.doc = str(m.doc, what + ": method '" + method.name + "' doc");
            impl->methods.push_back(m.call);
            info.methods.push_back(std::move(method));
        });
        info.impl = std::move(impl);
        session.object_types.push_back(std::move(info));
    });
}

static weft_status api_add_build_options(weft_host_context *ctx, const weft_build_options_desc *d) {
    return guarded(ctx, [&](InitSession &session) {
        const weft_build_options_desc desc = read_struct(d, "build options descriptor");
        ModuleBuildOptions o;
        o.extra_cuda_include_dirs = read_strings(desc.cuda_include_dirs, "cuda_include_dirs");
        o.extra_cpu_include_dirs = read_strings(desc.cpu_include_dirs, "cpu_include_dirs");
        o.extra_cuda_preamble = str(desc.cuda_preamble, "build options: cuda_preamble");
        o.extra_cpu_preamble = str(desc.cpu_preamble, "build options: cpu_preamble");
        o.extra_build_dependencies = read_strings(desc.build_dependencies, "build_dependencies");
        session.build_options.push_back(std::move(o));
    });
}

static void api_log(weft_host_context *ctx, weft_log_level level, const char *message) {
    if (!ctx || !message) return;
    const std::lock_guard<std::mutex> lock(ctx->mutex);
    // After init the host that owned the logger may be gone: the message is dropped.
    if (!ctx->session) return;
    try {
        const LogLevel l = level == WEFT_LOG_ERROR     ? LogLevel::Error
                           : level == WEFT_LOG_WARNING ? LogLevel::Warning
                           : level == WEFT_LOG_INFO    ? LogLevel::Info
                                                       : LogLevel::Debug;
        // A message is shown, not interpreted: escaped rather than rejected.
        ctx->session->logger->log(l, "plugin", ctx->session->plugin + ": " + escape_for_display(message));
    } catch (...) {
    }
}

static void api_report_error(weft_host_context *ctx, const char *message) {
    if (!ctx) return;
    const std::lock_guard<std::mutex> lock(ctx->mutex);
    if (!ctx->session) return;
    try {
        ctx->session->reported_error = message ? escape_for_display(message) : "(no message)";
    } catch (...) {
    }
}

static const char *api_last_error(weft_host_context *ctx) {
    if (!ctx) return "";
    const std::lock_guard<std::mutex> lock(ctx->mutex);
    return ctx->session ? ctx->last_error.c_str() : after_init_message;
}

static weft_proc api_get_proc_address(const char *name) {
    if (!name) return nullptr;
    // Every v1 function under its stable name; later ABI additions are only reachable here.
    const std::string_view n(name);
    if (n == "weft_register_native_type") return reinterpret_cast<weft_proc>(&api_register_native_type);
    if (n == "weft_register_builtin") return reinterpret_cast<weft_proc>(&api_register_builtin);
    if (n == "weft_add_build_options") return reinterpret_cast<weft_proc>(&api_add_build_options);
    if (n == "weft_log") return reinterpret_cast<weft_proc>(&api_log);
    if (n == "weft_report_error") return reinterpret_cast<weft_proc>(&api_report_error);
    if (n == "weft_last_error") return reinterpret_cast<weft_proc>(&api_last_error);
    if (n == WEFT_REGISTER_OBJECT_TYPE) return reinterpret_cast<weft_proc>(&api_register_object_type);
    return nullptr;
}

} // extern "C"

} // namespace

std::string string_from_plugin(const char *s, const std::string &field) {
    if (!s) return {};
    const std::string_view text(s);
    const std::size_t bad = find_invalid_utf8(text);
    if (bad == std::string_view::npos) return std::string(text);
    static constexpr char digits[] = "0123456789ABCDEF";
    const auto byte = static_cast<unsigned char>(text[bad]);
    throw RegistrationError(RegistrationError::Kind::Invalid, field + " is not valid UTF-8 (byte 0x" + digits[byte >> 4] +
                                                                   digits[byte & 0xF] + " at offset " +
                                                                   std::to_string(bad) + ")");
}

weft_host_context &open_host_context(std::unique_ptr<InitSession> session, std::string plugin_directory) {
    // Reachable from a static, never freed: see weft_host_context.
    static std::mutex contexts_mutex;
    static auto *contexts = new std::vector<std::unique_ptr<weft_host_context>>();
    auto owned = std::make_unique<weft_host_context>();
    weft_host_context &ctx = *owned;
    ctx.session = std::move(session);
    ctx.plugin_directory = std::move(plugin_directory);
    weft_host_api &api = ctx.api;
    api.struct_size = sizeof(weft_host_api);
    api.abi_version = WEFT_ABI_VERSION;
    api.ctx = &ctx;
    api.host_version = version_string;
    api.plugin_directory = ctx.plugin_directory.c_str();
    api.register_native_type = &api_register_native_type;
    api.register_builtin = &api_register_builtin;
    api.add_build_options = &api_add_build_options;
    api.log = &api_log;
    api.report_error = &api_report_error;
    api.last_error = &api_last_error;
    api.get_proc_address = &api_get_proc_address;
    const std::lock_guard<std::mutex> lock(contexts_mutex);
    contexts->push_back(std::move(owned));
    return ctx;
}

std::unique_ptr<InitSession> close_host_context(weft_host_context &ctx) {
    const std::lock_guard<std::mutex> lock(ctx.mutex);
    ctx.last_error = after_init_message;
    return std::move(ctx.session);
}

} // namespace weft
