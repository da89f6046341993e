#include "weft/support/sha256.hpp"

#include "weft/support/error.hpp"

#include <openssl/evp.h>

namespace weft {

namespace {
const EVP_MD *sha256_md() {
    // Fetched once: EVP_MD_fetch does a provider lookup each time.
    static EVP_MD *md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (!md) throw InternalError("OpenSSL: SHA256 is not available");
    return md;
}
} // namespace

struct Sha256::Impl {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    ~Impl() { EVP_MD_CTX_free(ctx); }
};

Sha256::Sha256() : impl_(std::make_unique<Impl>()) {
    if (!impl_->ctx || EVP_DigestInit_ex(impl_->ctx, sha256_md(), nullptr) != 1)
        throw InternalError("OpenSSL: EVP_DigestInit_ex failed");
}

Sha256::~Sha256() = default;

Sha256 &Sha256::update(const void *data, std::size_t size) {
    if (EVP_DigestUpdate(impl_->ctx, data, size) != 1) throw InternalError("OpenSSL: EVP_DigestUpdate failed");
    return *this;
}

Sha256 &Sha256::field(std::string_view text) {
    const std::string length = std::to_string(text.size()) + ":";
    update(length);
    return update(text);
}

std::string Sha256::hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (EVP_DigestFinal_ex(impl_->ctx, digest, &size) != 1) throw InternalError("OpenSSL: EVP_DigestFinal_ex failed");
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(size * 2);
    for (unsigned int i = 0; i < size; ++i) {
        out += digits[digest[i] >> 4];
        out += digits[digest[i] & 0xf];
    }
    return out;
}

std::string sha256_hex(std::string_view data) {
    Sha256 h;
    h.update(data);
    return h.hex();
}

} // namespace weft
