// Every field of ModuleLoadOptions, once, with what it does to a build: the
// module hash and the warm-load content key both read this table, so an
// option cannot reach the binary without reaching the key (a stale warm hit).
// A field added to ModuleLoadOptions without an entry here fails to compile
// (load_fields.cpp counts the struct's fields).
#pragma once

#include "weft/pipeline/load_options.hpp"

#include <map>
#include <span>
#include <string>
#include <string_view>

namespace weft::pipeline {

struct LoadField {
    enum class Effect {
        /// Changes the generated code or the compile on every target: in the module hash and the content key.
        Binary,
        /// Changes what some targets build (CUDA-only flags, which enter the
        /// hash through the NVRTC toolchain identity), or whether a pass can be
        /// built at all: in the content key.
        Key,
        /// Identity that has inputs of its own (the target, the module name,
        /// the referenced plugins' contracts, the resolved build options).
        Identity,
        /// Changes neither the binary nor what a load gives (use_pch).
        None,
    };
    std::string_view name;
    Effect effect;
    /// Only CPU code depends on it (-march=native): CUDA targets hash the default's value.
    bool cpu_only = false;
    std::string (*text)(const ModuleLoadOptions &);
    /// Sets the field to another value than the default's (for the guard test).
    void (*change)(ModuleLoadOptions &);
};

/// The table, in ModuleLoadOptions' declaration order.
std::span<const LoadField> load_fields();

/// The number of fields ModuleLoadOptions has (counted from the struct itself).
std::size_t load_options_field_count();

/// The (name, value) of every field with effect Binary, as the module hash
/// for a target of that kind takes them (a CPU-only field of a CUDA target at
/// its default).
std::map<std::string, std::string> binary_fields(const ModuleLoadOptions &load, bool cuda);

} // namespace weft::pipeline
