// Host objects: argument checks before any plugin code runs, the memory
// callbacks a plugin allocates through, reference-counted instances and their
// destruction. No exception crosses into the plugin: every callback catches.
#include "objects.hpp"

#include "weft/registry/registry.hpp" // is_identifier

#include "weft/runtime/device.hpp"
#include "weft/support/error.hpp"
#include "weft/support/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>

/// What a call's weft_object_api points to: the object being built or
/// called, and the error the plugin set.
struct weft_object_context {
    weft::detail::ObjectInstance *object = nullptr;
    std::string error;
};

namespace weft::detail {

namespace {

// --- device memory: host memory on the CPU, the device's runtime elsewhere ------

void *aligned_zeroed(std::uint64_t bytes) {
    // A garbage size (an unset variable in C) must not wrap the rounding below into a small block.
    if (bytes > (std::uint64_t{1} << 48)) throw std::bad_alloc();
    const std::uint64_t rounded = (std::max<std::uint64_t>(bytes, 1) + 63) / 64 * 64;
    void *p = std::aligned_alloc(64, static_cast<std::size_t>(rounded));
    if (!p) throw std::bad_alloc();
    std::memset(p, 0, static_cast<std::size_t>(rounded));
    return p;
}

void *allocate_on(Device device, std::uint64_t bytes) {
    if (device.is_cpu()) return aligned_zeroed(bytes);
    return device_runtime(device).allocate(device.ordinal, static_cast<std::size_t>(bytes));
}

void release_on(Device device, void *p) noexcept {
    if (device.is_cpu()) std::free(p);
    else device_runtime(device).release(device.ordinal, p);
}

// --- the callbacks (C functions: nothing throws out of them) -------------------

void set_error(weft_object_context *ctx, const char *message) {
    if (!ctx) return;
    try {
        ctx->error = message ? message : "";
    } catch (...) {
    }
}

void *device_alloc(weft_object_context *ctx, std::uint64_t bytes) {
    if (!ctx || !ctx->object) return nullptr;
    ObjectInstance &o = *ctx->object;
    try {
        if (bytes == 0) bytes = 1; // a distinct address the plugin may free
        void *p = allocate_on(o.device, bytes);
        const std::lock_guard lock(o.memory_mutex);
        o.device_blocks.emplace(p, bytes);
        o.device_total += bytes;
        return p;
    } catch (const std::exception &e) {
        set_error(ctx, (std::string("cannot allocate ") + std::to_string(bytes) + " bytes on " + o.device.name() +
                        ": " + e.what())
                           .c_str());
        return nullptr;
    } catch (...) {
        return nullptr;
    }
}

void device_free(weft_object_context *ctx, void *address) {
    if (!ctx || !ctx->object || !address) return;
    ObjectInstance &o = *ctx->object;
    std::uint64_t bytes = 0;
    {
        const std::lock_guard lock(o.memory_mutex);
        const auto it = o.device_blocks.find(address);
        if (it == o.device_blocks.end()) return; // not ours: freeing it would corrupt the device heap
        bytes = it->second;
        o.device_blocks.erase(it);
    }
    o.device_total -= bytes;
    release_on(o.device, address);
}

void *host_alloc(weft_object_context *ctx, std::uint64_t bytes) {
    if (!ctx || !ctx->object) return nullptr;
    ObjectInstance &o = *ctx->object;
    try {
        void *p = aligned_zeroed(bytes);
        const std::lock_guard lock(o.memory_mutex);
        o.host_blocks.emplace(p, bytes);
        o.host_total += bytes;
        return p;
    } catch (...) {
        set_error(ctx, ("cannot allocate " + std::to_string(bytes) + " bytes of host memory").c_str());
        return nullptr;
    }
}

void host_free(weft_object_context *ctx, void *address) {
    if (!ctx || !ctx->object || !address) return;
    ObjectInstance &o = *ctx->object;
    std::uint64_t bytes = 0;
    {
        const std::lock_guard lock(o.memory_mutex);
        const auto it = o.host_blocks.find(address);
        if (it == o.host_blocks.end()) return;
        bytes = it->second;
        o.host_blocks.erase(it);
    }
    o.host_total -= bytes;
    std::free(address);
}

weft_status copy(weft_object_context *ctx, void *dst, const void *src, std::uint64_t bytes, weft_copy_kind kind) {
    if (!ctx || !ctx->object) return WEFT_ERROR_INVALID_ARGUMENT;
    ObjectInstance &o = *ctx->object;
    if (bytes == 0) return WEFT_OK;
    if (!dst || !src) {
        set_error(ctx, "copy: a NULL address");
        return WEFT_ERROR_INVALID_ARGUMENT;
    }
    try {
        DeviceRuntime::Copy k = DeviceRuntime::Copy::HostToDevice;
        switch (kind) {
        case WEFT_COPY_HOST_TO_DEVICE: k = DeviceRuntime::Copy::HostToDevice; break;
        case WEFT_COPY_DEVICE_TO_HOST: k = DeviceRuntime::Copy::DeviceToHost; break;
        case WEFT_COPY_DEVICE_TO_DEVICE: k = DeviceRuntime::Copy::DeviceToDevice; break;
        default: set_error(ctx, "copy: unknown copy kind"); return WEFT_ERROR_INVALID_ARGUMENT;
        }
        if (o.device.is_cpu()) std::memmove(dst, src, static_cast<std::size_t>(bytes));
        else device_runtime(o.device).copy(o.device.ordinal, dst, src, static_cast<std::size_t>(bytes), k, nullptr);
        return WEFT_OK;
    } catch (const std::exception &e) {
        set_error(ctx, (std::string("copy: ") + e.what()).c_str());
        return WEFT_ERROR_INTERNAL;
    } catch (...) {
        return WEFT_ERROR_INTERNAL;
    }
}

/// The table a call passes, over `ctx`.
weft_object_api make_api(weft_object_context &ctx, const std::string &device_name) {
    weft_object_api api{};
    api.struct_size = sizeof api;
    api.device_is_cuda = ctx.object->device.is_cpu() ? 0u : 1u;
    api.ctx = &ctx;
    api.device = device_name.c_str();
    api.object_type = ctx.object->type->name.c_str();
    api.device_alloc = &device_alloc;
    api.device_free = &device_free;
    api.host_alloc = &host_alloc;
    api.host_free = &host_free;
    api.copy = &copy;
    api.set_error = &set_error;
    return api;
}

// --- arguments -------------------------------------------------------------------

/// The weft_object_arg array of one call, and what its pointers point into.
struct MarshalledArgs {
    std::vector<weft_object_arg> args;
    std::vector<weft_array_arg> arrays;
    std::vector<std::vector<std::int64_t>> shapes, strides;
    std::vector<std::string> strings; // dtype names, devices, string values, object types
    std::vector<Object> objects;      // object arguments, alive during the call
    std::vector<std::pair<std::string, Array>> retain; // arrays the object keeps once the call succeeds
};

std::string kind_name(const ObjectValue &v) {
    switch (v.index()) {
    case 0: return "an integer";
    case 1: return "a float";
    case 2: return "a bool";
    case 3: return "a string";
    case 4: return "an array";
    default: return "an object";
    }
}

/// Converts `v` for a scalar parameter of type `s`, refusing what would lose information.
void scalar_value(const ObjectValue &v, Scalar s, weft_object_arg &out, const std::string &where) {
    const bool is_float = s == Scalar::Float16 || s == Scalar::Float32 || s == Scalar::Float64 || s == Scalar::BFloat16;
    if (s == Scalar::Bool) {
        if (const bool *b = std::get_if<bool>(&v)) {
            out.kind = WEFT_VALUE_BOOL;
            out.int_value = *b ? 1 : 0;
            return;
        }
        throw UserError(where + "expects a bool, got " + kind_name(v));
    }
    if (is_float) {
        out.kind = WEFT_VALUE_FLOAT;
        if (const double *d = std::get_if<double>(&v)) out.float_value = *d;
        else if (const std::int64_t *i = std::get_if<std::int64_t>(&v)) out.float_value = static_cast<double>(*i);
        else throw UserError(where + "expects a number (" + std::string(scalar_name(s)) + "), got " + kind_name(v));
        return;
    }
    const std::int64_t *i = std::get_if<std::int64_t>(&v);
    if (!i) throw UserError(where + "expects an integer (" + std::string(scalar_name(s)) + "), got " + kind_name(v));
    const Type t = Type::scalar(s);
    const bool is_unsigned = s == Scalar::UInt8 || s == Scalar::UInt16 || s == Scalar::UInt32 || s == Scalar::UInt64;
    const int bits = static_cast<int>(t.size() * 8);
    bool fits = true;
    if (is_unsigned) fits = *i >= 0 && (bits >= 63 || *i < (std::int64_t{1} << bits));
    else if (bits < 64) fits = *i >= -(std::int64_t{1} << (bits - 1)) && *i < (std::int64_t{1} << (bits - 1));
    if (!fits) throw UserError(where + std::to_string(*i) + " does not fit " + std::string(scalar_name(s)));
    out.kind = WEFT_VALUE_INT;
    out.int_value = *i;
}

/// Checks `args` against `params` and builds the C array, one entry per
/// parameter in declaration order. `where` starts every message.
MarshalledArgs marshal(const std::vector<ObjectParam> &params, const std::vector<ParamCheck> &checks,
                       const ObjectArgs &args, Device device, const std::string &where, const std::string &own_plugin) {
    std::vector<const ObjectValue *> given(params.size(), nullptr);
    for (const auto &[name, value] : args) {
        const auto it = std::find_if(params.begin(), params.end(), [&](const ObjectParam &p) { return p.name == name; });
        if (it == params.end()) {
            std::string names;
            for (const ObjectParam &p : params) names += (names.empty() ? "" : ", ") + p.name;
            throw UserError(where + "no parameter '" + escape_for_display(name) + "' (parameters: " +
                            (names.empty() ? "none" : names) + ")");
        }
        const std::size_t k = static_cast<std::size_t>(it - params.begin());
        if (given[k]) throw UserError(where + "argument '" + name + "' given twice");
        given[k] = &value;
    }
    MarshalledArgs m;
    m.args.resize(params.size());
    m.arrays.resize(params.size());
    m.shapes.resize(params.size());
    m.strides.resize(params.size());
    m.strings.reserve(params.size() * 2);
    // Pointers into m.strings must not move: reserve, then only push_back within it.
    for (std::size_t k = 0; k < params.size(); ++k) {
        const ObjectParam &p = params[k];
        const ParamCheck &c = checks[k];
        weft_object_arg &a = m.args[k];
        a.struct_size = sizeof a;
        a.name = p.name.c_str();
        a.kind = WEFT_VALUE_NONE;
        const std::string at = where + "argument '" + p.name + "': ";
        if (!given[k]) {
            if (!p.optional) throw UserError(where + "missing argument '" + p.name + "' (" + p.type + ")");
            continue;
        }
        const ObjectValue &v = *given[k];
        switch (c.kind) {
        case ParamCheck::Kind::Scalar: scalar_value(v, c.type.scalar_type(), a, at); break;
        case ParamCheck::Kind::String: {
            const std::string *s = std::get_if<std::string>(&v);
            if (!s) throw UserError(at + "expects a string, got " + kind_name(v));
            m.strings.push_back(*s);
            a.kind = WEFT_VALUE_STRING;
            a.string_value = m.strings.back().c_str();
            break;
        }
        case ParamCheck::Kind::Array: {
            const Array *arr = std::get_if<Array>(&v);
            if (!arr) throw UserError(at + "expects " + c.type.name() + ", got " + kind_name(v));
            if (arr->is_moved_from() || arr->is_null())
                throw UserError(at + "the array has no elements behind it (moved from or null_array_like)");
            if (arr->dtype() != c.type.element() || arr->ndim() != c.type.ndim())
                throw UserError(at + "expects " + c.type.name() + ", got " + arr->type().name());
            if (arr->device() != device)
                throw UserError(at + "the array is on " + arr->device().name() + ", the object on " + device.name());
            m.shapes[k] = arr->shape();
            m.strides[k] = arr->strides();
            weft_array_arg &view = m.arrays[k];
            view.struct_size = sizeof view;
            view.ndim = static_cast<std::uint32_t>(arr->ndim());
            view.data = reinterpret_cast<std::uint64_t>(arr->data());
            view.shape = m.shapes[k].data();
            view.strides = m.strides[k].data();
            m.strings.push_back(arr->dtype().name());
            view.dtype = m.strings.back().c_str();
            view.dtype_size = arr->dtype().size();
            m.strings.push_back(arr->device().name());
            view.device = m.strings.back().c_str();
            a.kind = WEFT_VALUE_ARRAY;
            a.array = &view;
            if (p.retain) m.retain.emplace_back(p.name, *arr);
            break;
        }
        case ParamCheck::Kind::Object: {
            const Object *o = std::get_if<Object>(&v);
            if (!o || !*o) throw UserError(at + "expects an object" + (c.object_type.empty() ? "" : " of type '" + c.object_type + "'") + ", got " + (o ? "an empty Object" : kind_name(v)));
            if (!c.object_type.empty() && o->type() != c.object_type)
                throw UserError(at + "expects an object of type '" + c.object_type + "', got " + o->label());
            if (o->device() != device)
                throw UserError(at + o->label() + " is on " + o->device().name() + ", the object on " + device.name());
            m.objects.push_back(*o);
            const ObjectInstance &inst = *ObjectAccess::of(*o);
            a.kind = WEFT_VALUE_OBJECT;
            a.object_id = inst.id.load();
            a.object_type = inst.type->name.c_str();
            a.object = inst.type->plugin == own_plugin ? inst.handle : nullptr;
            break;
        }
        }
    }
    return m;
}

std::string failure(const std::string &where, weft_status status, const std::string &error) {
    return where + (error.empty() ? "failed (status " + std::to_string(status) + ", no message)" : error);
}

} // namespace

ParamCheck parse_param_type(const std::function<Type(std::string_view)> &parse, const std::string &type) {
    ParamCheck c;
    if (type == "string") {
        c.kind = ParamCheck::Kind::String;
        return c;
    }
    if (type == "object") {
        c.kind = ParamCheck::Kind::Object;
        return c;
    }
    if (type.rfind("object(", 0) == 0 && type.size() > 8 && type.back() == ')') {
        c.kind = ParamCheck::Kind::Object;
        c.object_type = type.substr(7, type.size() - 8);
        if (!is_identifier(c.object_type)) throw std::invalid_argument("'" + type + "': not an object type name");
        return c;
    }
    Type t;
    try {
        t = parse(type);
    } catch (const std::exception &e) {
        throw std::invalid_argument("'" + type + "': " + e.what());
    }
    if (t.kind() == Type::Kind::Array) {
        c.kind = ParamCheck::Kind::Array;
        c.type = t;
        return c;
    }
    if (t.kind() == Type::Kind::Scalar) {
        c.kind = ParamCheck::Kind::Scalar;
        c.type = t;
        return c;
    }
    throw std::invalid_argument("'" + type + "' is not an array, scalar, string or object type");
}

ObjectStats ObjectTable::stats() {
    const std::lock_guard lock(mutex);
    ObjectStats s;
    std::erase_if(objects, [](const std::weak_ptr<ObjectInstance> &w) { return w.expired(); });
    for (const auto &w : objects)
        if (const auto o = w.lock(); o && o->constructed) {
            ++s.live;
            s.device_bytes += o->device_total.load();
            s.host_bytes += o->host_total.load();
            s.labels.push_back(o->label());
        }
    return s;
}

void ObjectTable::warn(const std::string &message) {
    const std::lock_guard lock(mutex);
    if (logger) logger->log(LogLevel::Warning, "objects", message);
}

std::string ObjectInstance::label() const {
    return type->name + " #" + std::to_string(serial) + " (plugin '" + type->plugin + "', " + device.name() + ")";
}

ObjectInstance::~ObjectInstance() {
    if (constructed && type->impl->destroy) {
        weft_object_context ctx;
        ctx.object = this;
        const std::string device_name = device.name();
        const weft_object_api api = make_api(ctx, device_name);
        type->impl->destroy(&api, handle);
    }
    // What the plugin did not free goes now: the host's memory, not a leak.
    std::uint64_t left = 0;
    for (const auto &[p, bytes] : device_blocks) {
        left += bytes;
        release_on(device, p);
    }
    for (const auto &[p, bytes] : host_blocks) {
        left += bytes;
        std::free(p);
    }
    if (left && constructed)
        if (const auto t = table.lock())
            t->warn(label() + ": destroy left " + std::to_string(left) + " bytes allocated; the host freed them");
}

Object create_object(const std::shared_ptr<const ObjectTypeInfo> &type, const ObjectArgs &args, Device device,
                     const std::shared_ptr<ObjectTable> &table) {
    const std::string where = "plugin '" + type->plugin + "', object type '" + type->name + "', constructor: ";
    auto inst = std::make_shared<ObjectInstance>();
    inst->type = type;
    inst->device = device;
    inst->table = table;
    MarshalledArgs m = marshal(type->params, type->impl->params, args, device, where, type->plugin);
    if (!device.is_cpu()) (void)device_runtime(device); // no runtime for it: fails here, before plugin code
    {
        const std::lock_guard lock(table->mutex);
        inst->serial = table->next_serial++;
    }
    weft_object_context ctx;
    ctx.object = inst.get();
    const std::string device_name = device.name();
    const weft_object_api api = make_api(ctx, device_name);
    void *handle = nullptr;
    std::uint64_t id = 0;
    const weft_status status =
        type->impl->create(&api, m.args.data(), static_cast<std::uint32_t>(m.args.size()), &handle, &id);
    if (status != WEFT_OK) {
        // Nothing constructed: the destructor frees what the plugin left allocated, and calls no destroy.
        throw UserError(failure(where, status, escape_for_terminal(ctx.error)));
    }
    inst->handle = handle;
    inst->id = id;
    for (auto &[name, array] : m.retain) inst->retained.insert_or_assign(name, std::move(array));
    inst->constructed = true;
    {
        const std::lock_guard lock(table->mutex);
        std::erase_if(table->objects, [](const std::weak_ptr<ObjectInstance> &w) { return w.expired(); });
        table->objects.push_back(inst);
    }
    return ObjectAccess::make(std::move(inst));
}

} // namespace weft::detail

namespace weft {

using detail::ObjectInstance;

namespace {
const ObjectInstance &instance(const std::shared_ptr<ObjectInstance> &p) {
    if (!p) throw UserError("an empty weft::Object (default-constructed or moved from)");
    return *p;
}
} // namespace

std::string ObjectTypeInfo::signature() const {
    std::string s = name + "(";
    for (std::size_t i = 0; i < params.size(); ++i)
        s += (i ? ", " : "") + params[i].name + ": " + params[i].type + (params[i].optional ? " = None" : "");
    return s + ")";
}

const ObjectMethodInfo *ObjectTypeInfo::method(std::string_view n) const {
    for (const ObjectMethodInfo &m : methods)
        if (m.name == n) return &m;
    return nullptr;
}

std::uint64_t Object::id() const { return instance(impl_).id.load(); }
const std::string &Object::type() const { return instance(impl_).type->name; }
const std::string &Object::plugin() const { return instance(impl_).type->plugin; }
Device Object::device() const { return instance(impl_).device; }
std::string Object::label() const { return instance(impl_).label(); }
std::uint64_t Object::device_bytes() const { return instance(impl_).device_total.load(); }
std::uint64_t Object::host_bytes() const { return instance(impl_).host_total.load(); }

void Object::call(std::string_view method, const ObjectArgs &args) const {
    ObjectInstance &o = const_cast<ObjectInstance &>(instance(impl_));
    const ObjectTypeInfo &t = *o.type;
    const ObjectMethodInfo *m = t.method(method);
    if (!m) {
        std::string names;
        for (const ObjectMethodInfo &x : t.methods) names += (names.empty() ? "" : ", ") + x.name;
        throw UserError("plugin '" + t.plugin + "', object type '" + t.name + "': no method '" +
                        escape_for_display(method) + "' (methods: " + (names.empty() ? "none" : names) + ")");
    }
    const std::size_t k = static_cast<std::size_t>(m - t.methods.data());
    const std::string where = "plugin '" + t.plugin + "', object type '" + t.name + "', method '" + m->name + "': ";
    detail::MarshalledArgs margs = detail::marshal(m->params, t.impl->method_params[k], args, o.device, where, t.plugin);
    const std::lock_guard lock(o.call_mutex);
    weft_object_context ctx;
    ctx.object = &o;
    const std::string device_name = o.device.name();
    const weft_object_api api = detail::make_api(ctx, device_name);
    std::uint64_t id = o.id.load();
    const weft_status status =
        t.impl->methods[k](&api, o.handle, margs.args.data(), static_cast<std::uint32_t>(margs.args.size()), &id);
    o.id = id;
    if (status != WEFT_OK) throw UserError(detail::failure(where, status, escape_for_terminal(ctx.error)));
    for (auto &[name, array] : margs.retain) o.retained.insert_or_assign(name, std::move(array));
}

Object::operator KernelArg() const {
    const ObjectInstance &o = instance(impl_);
    return KernelArg::kept(KernelArg(o.id.load()), impl_);
}

} // namespace weft
