// Errors raised inside the host. Whose fault an error is stays explicit in
// its type: UserError for bad input (a manifest, a descriptor, a path),
// InternalError for a broken invariant of weft itself.
#pragma once

#include <stdexcept>
#include <string>

namespace weft {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Bad input from a user, a plugin or a file. The message names the thing at fault.
class UserError : public Error {
public:
    using Error::Error;
};

/// A registration rejected by the registry (conflict, namespace, malformed descriptor).
class RegistrationError : public UserError {
public:
    enum class Kind { Invalid, Conflict, Namespace, UnknownType };
    RegistrationError(Kind kind, const std::string &message) : UserError(message), kind_(kind) {}
    Kind kind() const noexcept { return kind_; }

private:
    Kind kind_;
};

/// A plugin that could not be loaded; the message starts with the plugin's name.
class PluginError : public UserError {
public:
    PluginError(std::string plugin, const std::string &message)
        : UserError(message), plugin_(std::move(plugin)) {}
    const std::string &plugin() const noexcept { return plugin_; }

private:
    std::string plugin_;
};

/// A broken invariant inside weft: a bug to report, not a user mistake.
class InternalError : public Error {
public:
    using Error::Error;
};

} // namespace weft
