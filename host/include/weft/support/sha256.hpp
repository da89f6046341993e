// SHA-256 with OpenSSL's SHA256_* functions; a Sha256 object streams any
// number of updates. Not through EVP: a process's first EVP digest loads
// OpenSSL's configuration and providers (about 0.8 ms), which every warm
// load waited for (issue 20); the SHA-256 code is the same.
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
    // Room for OpenSSL's SHA256_CTX (112 bytes in OpenSSL 3), checked
    // against the real type where it is used (sha256.cpp): no allocation
    // per digest, and no OpenSSL header here.
    alignas(8) unsigned char state_[128];
};

/// Hex SHA-256 of one buffer.
std::string sha256_hex(std::string_view data);

} // namespace weft
