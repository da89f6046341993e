// Ed25519 keys and signatures over OpenSSL's EVP interface. Keys are PEM
// files as the openssl command line writes them (no format of weft's own):
//
//   openssl genpkey -algorithm ed25519 -out signer.pem          # private key
//   openssl pkey -in signer.pem -pubout -out signer.pub.pem     # public key
//
// A key is known by its id: the first 16 hex digits of the SHA-256 of its
// raw 32-byte public key, so a signature names the key that made it.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace weft::trust {

namespace detail {
struct PkeyDeleter {
    void operator()(void *pkey) const;
};
using PkeyPtr = std::unique_ptr<void, PkeyDeleter>; // EVP_PKEY, kept out of the header
} // namespace detail

class PublicKey {
public:
    /// Reads a PEM public key ("-----BEGIN PUBLIC KEY-----"); throws UserError
    /// naming the file when it is unreadable or not an Ed25519 key.
    static PublicKey load_pem(const std::filesystem::path &path);
    /// The same from the file's text; `name` stands for the file in messages.
    static PublicKey parse_pem(std::string_view text, const std::string &name);

    /// Whether `signature` (64 bytes) is this key's Ed25519 signature of `message`.
    bool verify(std::string_view message, std::string_view signature) const;
    const std::string &id() const { return id_; }
    /// Where it came from (the file name), for messages.
    const std::string &name() const { return name_; }

private:
    detail::PkeyPtr key_;
    std::string id_, name_;
};

class PrivateKey {
public:
    /// Reads a PEM private key ("-----BEGIN PRIVATE KEY-----"); throws UserError
    /// naming the file when it is unreadable, encrypted or not an Ed25519 key.
    static PrivateKey load_pem(const std::filesystem::path &path);

    /// The 64-byte Ed25519 signature of `message`.
    std::string sign(std::string_view message) const;
    /// The id of the matching public key.
    const std::string &id() const { return id_; }

private:
    detail::PkeyPtr key_;
    std::string id_;
};

/// The trusted public keys: every `*.pem` file in a directory.
class TrustedKeys {
public:
    TrustedKeys() = default;
    /// Throws UserError when the directory is missing, holds no key, or a
    /// `*.pem` in it is not an Ed25519 public key (naming the file).
    static TrustedKeys load_directory(const std::filesystem::path &directory);

    /// The key with this id, or nullptr.
    const PublicKey *find(std::string_view id) const;
    const std::filesystem::path &directory() const { return directory_; }
    std::size_t size() const { return keys_.size(); }

private:
    std::filesystem::path directory_;
    std::vector<PublicKey> keys_;
};

/// Lowercase hex of bytes, and back (std::nullopt-free: empty on bad input).
std::string to_hex(std::string_view bytes);
std::string from_hex(std::string_view hex);

} // namespace weft::trust
