// Host objects: things a plugin defines that an application builds on the
// host from arrays and values (a mesh with its BVH, a hash grid over points),
// that live on one device and that kernels reach by a uint64 id (Warp's
// wp.Mesh(...).id). Created with Host::create; the plugin side is
// weft_object_type_desc in weft/plugin.h.
#pragma once

#include "weft/runtime/array.hpp"
#include "weft/runtime/kernel_arg.hpp"
#include "weft/support/device.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace weft {

/// A declared parameter of a constructor or method (weft_object_param_desc).
struct ObjectParam {
    std::string name;
    std::string type; // "array(dtype=vec3)", "float32", "string", "object", "object(mesh)"
    bool optional = false;
    /// An array the object keeps using: held alive with the object (WEFT_OBJECT_PARAM_RETAIN).
    bool retain = false;
    std::string doc;
};

struct ObjectMethodInfo {
    std::string name;
    std::vector<ObjectParam> params;
    std::string doc;
};

namespace detail {
struct ObjectTypeImpl; // the plugin's functions (host/lib/host/objects.hpp)
struct ObjectInstance;
struct ObjectAccess;
} // namespace detail

/// An object type a plugin registered.
struct ObjectTypeInfo {
    std::string name;
    std::string plugin;
    std::string doc;
    std::vector<ObjectParam> params; // the constructor's
    std::vector<ObjectMethodInfo> methods;
    /// The plugin's functions; holds its library mapped while objects of the type live.
    std::shared_ptr<detail::ObjectTypeImpl> impl;

    /// "mesh(points: array(dtype=vec3), indices: array(int32), velocities: array(dtype=vec3) = None)"
    std::string signature() const;
    const ObjectMethodInfo *method(std::string_view name) const;
};

class Object;

/// One argument's value: an integer, a float, a bool, a string, an array or another object.
using ObjectValue = std::variant<std::int64_t, double, bool, std::string, Array, Object>;
/// Named arguments, in any order.
using ObjectArgs = std::vector<std::pair<std::string, ObjectValue>>;

/// A reference to a host object. Copies share the object; it is destroyed
/// (its plugin's destroy called, its memory freed) when the last copy and
/// the last pending launch that received it are gone. An object may outlive
/// its Host: its plugin's library stays mapped until then.
class Object {
public:
    /// No object (id() throws).
    Object() = default;

    explicit operator bool() const { return static_cast<bool>(impl_); }
    /// What kernels receive (a `wp.uint64` parameter); a method may change it.
    std::uint64_t id() const;
    const std::string &type() const;
    const std::string &plugin() const;
    Device device() const;
    /// "mesh #3 (plugin 'mesh', cpu)", for messages.
    std::string label() const;
    /// Bytes of device and host memory the object holds through the host's callbacks.
    std::uint64_t device_bytes() const;
    std::uint64_t host_bytes() const;

    /// Runs method `name` ("refit"). UserError naming plugin, type, method and
    /// argument for a bad argument or a failure the plugin reports.
    void call(std::string_view method, const ObjectArgs &args = {}) const;

    /// As a launch argument: the id, for a uint64 parameter, keeping the
    /// object alive until the launch has run (on a stream: until the stream
    /// reaches it, CPU, or is synchronized, CUDA).
    operator KernelArg() const;

    bool operator==(const Object &other) const { return impl_ == other.impl_; }

private:
    friend struct detail::ObjectAccess;
    explicit Object(std::shared_ptr<detail::ObjectInstance> impl) : impl_(std::move(impl)) {}
    std::shared_ptr<detail::ObjectInstance> impl_;
};

/// The objects of a host alive now, and the memory they hold.
struct ObjectStats {
    std::size_t live = 0;
    std::uint64_t device_bytes = 0;
    std::uint64_t host_bytes = 0;
    std::vector<std::string> labels; // label() of each, in creation order
};

} // namespace weft
