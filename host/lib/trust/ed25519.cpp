#include "weft/trust/ed25519.hpp"

#include "weft/support/error.hpp"
#include "weft/support/file.hpp"
#include "weft/support/sha256.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <algorithm>

namespace weft::trust {

namespace fs = std::filesystem;

void detail::PkeyDeleter::operator()(void *pkey) const { EVP_PKEY_free(static_cast<EVP_PKEY *>(pkey)); }

namespace {

constexpr std::uintmax_t max_key_file = 64 * 1024;
constexpr std::size_t raw_key_size = 32;
constexpr std::size_t signature_size = 64;

EVP_PKEY *pkey(const detail::PkeyPtr &p) { return static_cast<EVP_PKEY *>(p.get()); }

std::string openssl_error() {
    const unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (code == 0) return "unknown OpenSSL error";
    char buffer[256];
    ERR_error_string_n(code, buffer, sizeof buffer);
    return buffer;
}

struct BioDeleter {
    void operator()(BIO *b) const { BIO_free(b); }
};
struct MdCtxDeleter {
    void operator()(EVP_MD_CTX *c) const { EVP_MD_CTX_free(c); }
};

std::string raw_public(EVP_PKEY *key) {
    std::string raw(raw_key_size, '\0');
    std::size_t size = raw.size();
    if (EVP_PKEY_get_raw_public_key(key, reinterpret_cast<unsigned char *>(raw.data()), &size) != 1 ||
        size != raw_key_size)
        throw InternalError("cannot read an Ed25519 public key: " + openssl_error());
    return raw;
}

std::string key_id(EVP_PKEY *key) { return sha256_hex(raw_public(key)).substr(0, 16); }

/// Reads a PEM key; `private_key` selects the reader.
/// Parses PEM text; `name` (the file) prefixes messages.
detail::PkeyPtr parse_pem_text(std::string_view text, const std::string &name, bool private_key) {
    const std::string what = private_key ? "Ed25519 private key" : "Ed25519 public key";
    if (text.size() > max_key_file) throw UserError(name + ": not a PEM " + what + " (larger than a key file)");
    std::unique_ptr<BIO, BioDeleter> bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
    if (!bio) throw InternalError("BIO_new_mem_buf failed");
    // No passphrase callback: an encrypted key fails here instead of prompting.
    pem_password_cb *no_password = [](char *, int, int, void *) { return -1; };
    EVP_PKEY *key = private_key ? PEM_read_bio_PrivateKey(bio.get(), nullptr, no_password, nullptr)
                                : PEM_read_bio_PUBKEY(bio.get(), nullptr, no_password, nullptr);
    if (!key)
        throw UserError(name + ": not a PEM " + what + " (" + openssl_error() + ")" +
                        (private_key ? "; make one with `openssl genpkey -algorithm ed25519 -out KEY.pem`"
                                     : "; make one with `openssl pkey -in KEY.pem -pubout -out KEY.pub.pem`"));
    detail::PkeyPtr owned(key);
    if (EVP_PKEY_get_base_id(key) != EVP_PKEY_ED25519)
        throw UserError(name + ": is a " + std::string(EVP_PKEY_get0_type_name(key) ? EVP_PKEY_get0_type_name(key) : "?") +
                        " key, not an Ed25519 key");
    return owned;
}

detail::PkeyPtr read_pem(const fs::path &path, bool private_key) {
    const std::string text =
        read_input_file(path, max_key_file, private_key ? "Ed25519 private key" : "Ed25519 public key");
    return parse_pem_text(text, path.string(), private_key);
}

} // namespace

PublicKey PublicKey::parse_pem(std::string_view text, const std::string &name) {
    PublicKey k;
    k.key_ = parse_pem_text(text, name, false);
    k.id_ = key_id(pkey(k.key_));
    k.name_ = name;
    return k;
}

PublicKey PublicKey::load_pem(const fs::path &path) {
    PublicKey k;
    k.key_ = read_pem(path, false);
    k.id_ = key_id(pkey(k.key_));
    k.name_ = path.filename().string();
    return k;
}

bool PublicKey::verify(std::string_view message, std::string_view signature) const {
    if (signature.size() != signature_size) return false;
    std::unique_ptr<EVP_MD_CTX, MdCtxDeleter> ctx(EVP_MD_CTX_new());
    if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, pkey(key_)) != 1)
        throw InternalError("EVP_DigestVerifyInit failed: " + openssl_error());
    const int ok = EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char *>(signature.data()), signature.size(),
                                    reinterpret_cast<const unsigned char *>(message.data()), message.size());
    ERR_clear_error();
    return ok == 1;
}

PrivateKey PrivateKey::load_pem(const fs::path &path) {
    PrivateKey k;
    k.key_ = read_pem(path, true);
    k.id_ = key_id(pkey(k.key_));
    return k;
}

std::string PrivateKey::sign(std::string_view message) const {
    std::unique_ptr<EVP_MD_CTX, MdCtxDeleter> ctx(EVP_MD_CTX_new());
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, pkey(key_)) != 1)
        throw InternalError("EVP_DigestSignInit failed: " + openssl_error());
    std::string signature(signature_size, '\0');
    std::size_t size = signature.size();
    if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char *>(signature.data()), &size,
                       reinterpret_cast<const unsigned char *>(message.data()), message.size()) != 1 ||
        size != signature_size)
        throw InternalError("EVP_DigestSign failed: " + openssl_error());
    return signature;
}

TrustedKeys TrustedKeys::load_directory(const fs::path &directory) {
    TrustedKeys t;
    t.directory_ = directory;
    std::error_code ec;
    if (!fs::is_directory(directory, ec))
        throw UserError("trusted keys directory " + directory.string() + " " +
                        (fs::exists(directory, ec) ? "is not a directory" : "does not exist"));
    std::vector<fs::path> files;
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".pem") files.push_back(it->path());
    if (ec) throw UserError("trusted keys directory " + directory.string() + " cannot be read: " + ec.message());
    std::sort(files.begin(), files.end());
    for (const fs::path &f : files) t.keys_.push_back(PublicKey::load_pem(f));
    if (t.keys_.empty()) throw UserError("trusted keys directory " + directory.string() + " holds no public key (*.pem)");
    return t;
}

const PublicKey *TrustedKeys::find(std::string_view id) const {
    for (const PublicKey &k : keys_)
        if (k.id() == id) return &k;
    return nullptr;
}

std::string to_hex(std::string_view bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

std::string from_hex(std::string_view hex) {
    auto value = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    if (hex.size() % 2) return {};
    std::string out;
    for (std::size_t i = 0; i < hex.size(); i += 2) {
        const int hi = value(hex[i]), lo = value(hex[i + 1]);
        if (hi < 0 || lo < 0) return {};
        out += static_cast<char>(hi * 16 + lo);
    }
    return out;
}

} // namespace weft::trust
