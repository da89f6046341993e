// SHA-256 over OpenSSL's EVP interface. The digest algorithm is fetched once
// per process; a Sha256 object streams any number of updates.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace weft {

class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256 &) = delete;
    Sha256 &operator=(const Sha256 &) = delete;

    Sha256 &update(const void *data, std::size_t size);
    Sha256 &update(std::string_view text) { return update(text.data(), text.size()); }
    /// Appends a length-prefixed field, so ("ab","c") and ("a","bc") differ.
    Sha256 &field(std::string_view text);
    /// Finishes and returns the lowercase hex digest (64 characters).
    std::string hex();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Hex SHA-256 of one buffer.
std::string sha256_hex(std::string_view data);

} // namespace weft
