// weft's core builtins, registered through the same Registry path as plugin
// builtins (owner "core", no namespace policy). This is the arithmetic and
// math starter set the registry contracts rely on (plugins may add overloads
// to these names); the kernel-language front end grows it.
#include "weft/registry.hpp"

#include <string>
#include <vector>

namespace weft {

namespace {

struct Registrar {
    Registry::Transaction &tx;

    void add(const std::string &name, std::vector<ParameterSpec> params, const std::string &result,
             const std::string &doc) {
        tx.add_builtin(BuiltinSpec{name, std::move(params), result, "weft::" + name, doc});
    }
    void binary(const std::string &name, const std::string &type, const std::string &doc) {
        add(name, {{"a", type}, {"b", type}}, type, doc);
    }
    void unary(const std::string &name, const std::string &type, const std::string &doc) {
        add(name, {{"a", type}}, type, doc);
    }
};

} // namespace

void register_core_builtins(Registry &registry) {
    Registry::Transaction tx = registry.begin("core");
    Registrar r{tx};

    const std::vector<std::string> ints{"int32", "int64", "uint32", "uint64"};
    const std::vector<std::string> floats{"float32", "float64"};
    const std::vector<std::string> vectors{"vec2", "vec3", "vec4", "vec2d", "vec3d", "vec4d"};
    std::vector<std::string> scalars = ints;
    scalars.insert(scalars.end(), floats.begin(), floats.end());

    for (const std::string &t : scalars) {
        r.binary("add", t, "Returns a + b.");
        r.binary("sub", t, "Returns a - b.");
        r.binary("mul", t, "Returns a * b.");
        r.binary("div", t, "Returns a / b.");
        r.binary("min", t, "Returns the smaller of a and b.");
        r.binary("max", t, "Returns the larger of a and b.");
        r.unary("neg", t, "Returns -a.");
        r.unary("abs", t, "Returns |a|.");
        r.add("clamp", {{"x", t}, {"low", t}, {"high", t}}, t, "Clamps x to [low, high].");
    }
    for (const std::string &t : ints) r.binary("mod", t, "Returns the remainder of a / b.");
    for (const std::string &t : floats) {
        for (const char *name : {"sqrt", "exp", "log", "sin", "cos", "tan", "floor", "ceil"})
            r.unary(name, t, std::string("Returns ") + name + "(a).");
        r.binary("pow", t, "Returns a raised to the power b.");
    }
    for (const std::string &v : vectors) {
        const std::string s = v.back() == 'd' ? "float64" : "float32";
        r.binary("add", v, "Component-wise a + b.");
        r.binary("sub", v, "Component-wise a - b.");
        r.add("mul", {{"a", v}, {"b", s}}, v, "Scales vector a by b.");
        r.add("mul", {{"a", s}, {"b", v}}, v, "Scales vector b by a.");
        r.add("dot", {{"a", v}, {"b", v}}, s, "Dot product of a and b.");
        r.add("length", {{"a", v}}, s, "Euclidean length of a.");
        r.unary("normalize", v, "Returns a scaled to unit length.");
    }
    r.binary("cross", "vec3", "Cross product of a and b.");
    r.binary("cross", "vec3d", "Cross product of a and b.");
    tx.commit();
}

} // namespace weft
