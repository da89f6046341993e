// Host objects inside the host: the plugin's functions behind an object type,
// the parameter checks every call runs before plugin code, and the live
// objects of a host. Not installed.
#pragma once

#include "weft/host/object.hpp"
#include "weft/registry/types.hpp"
#include "weft/support/log.hpp"

#include <weft/plugin.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace weft::detail {

/// A declared parameter's type as the host checks it.
struct ParamCheck {
    enum class Kind { Array, Scalar, String, Object } kind = Kind::Scalar;
    Type type;               // Array: the array type; Scalar: the scalar
    std::string object_type; // Object: the required type, "" for any
};

/// Parses a weft_object_param_desc type with `parse` for kernel type names;
/// std::invalid_argument saying what is wrong with it.
ParamCheck parse_param_type(const std::function<Type(std::string_view)> &parse, const std::string &type);

struct ObjectTypeImpl {
    weft_object_create_fn create = nullptr;
    weft_object_destroy_fn destroy = nullptr;
    std::vector<weft_object_method_fn> methods; // in ObjectTypeInfo::methods' order
    std::vector<ParamCheck> params;              // the constructor's
    std::vector<std::vector<ParamCheck>> method_params;
    /// The plugin's library (set when the plugin is committed): objects keep it mapped.
    std::shared_ptr<const void> library;
};

/// The live objects of one host, for stats and for the messages of a host
/// destroyed while some are alive. Objects refer to it weakly.
struct ObjectTable {
    std::mutex mutex;
    std::vector<std::weak_ptr<ObjectInstance>> objects;
    std::uint64_t next_serial = 1;
    /// The host's logger while the host lives (cleared by its destructor).
    const Logger *logger = nullptr;
    ObjectStats stats();
    void warn(const std::string &message);
};

struct ObjectInstance {
    std::shared_ptr<const ObjectTypeInfo> type;
    Device device;
    std::uint64_t serial = 0;
    void *handle = nullptr;
    std::atomic<std::uint64_t> id{0};
    bool constructed = false;
    std::weak_ptr<ObjectTable> table;
    std::mutex call_mutex; // one method at a time per object
    // Memory the plugin took through the callbacks: address -> bytes.
    std::mutex memory_mutex;
    std::map<void *, std::uint64_t> device_blocks, host_blocks;
    // Arrays of WEFT_OBJECT_PARAM_RETAIN parameters, by parameter name (guarded by call_mutex).
    std::map<std::string, Array> retained;
    std::atomic<std::uint64_t> device_total{0}, host_total{0};

    ~ObjectInstance();
    std::string label() const;
};

struct ObjectAccess {
    static Object make(std::shared_ptr<ObjectInstance> impl) { return Object(std::move(impl)); }
    static const std::shared_ptr<ObjectInstance> &of(const Object &o) { return o.impl_; }
};

/// Builds an object of `type` on `device` from `args` (Host::create).
Object create_object(const std::shared_ptr<const ObjectTypeInfo> &type, const ObjectArgs &args, Device device,
                     const std::shared_ptr<ObjectTable> &table);

} // namespace weft::detail
