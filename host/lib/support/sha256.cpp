#include "weft/support/sha256.hpp"

#include "weft/support/error.hpp"

// SHA256_Init/Update/Final are deprecated in OpenSSL 3 in favour of EVP,
// which is what costs a first digest its configuration and provider loading.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include <new>

namespace weft {

namespace {
SHA256_CTX &context(unsigned char *state) { return *std::launder(reinterpret_cast<SHA256_CTX *>(state)); }
} // namespace

Sha256::Sha256() {
    static_assert(sizeof(SHA256_CTX) <= sizeof(state_) && alignof(SHA256_CTX) <= 8, "Sha256::state_ is too small");
    SHA256_CTX *ctx = new (state_) SHA256_CTX;
    if (SHA256_Init(ctx) != 1) throw InternalError("OpenSSL: SHA256_Init failed");
}

Sha256::~Sha256() = default;

Sha256 &Sha256::update(const void *data, std::size_t size) {
    if (SHA256_Update(&context(state_), data, size) != 1) throw InternalError("OpenSSL: SHA256_Update failed");
    return *this;
}

Sha256 &Sha256::field(std::string_view text) {
    // The decimal length and ':' without a std::string: field() runs for
    // every part of a content key and module hash.
    char length[24];
    char *end = length + sizeof length;
    char *p = end;
    *--p = ':';
    std::size_t n = text.size();
    do {
        *--p = static_cast<char>('0' + n % 10);
        n /= 10;
    } while (n != 0);
    update(p, static_cast<std::size_t>(end - p));
    return update(text);
}

std::string Sha256::hex() {
    unsigned char digest[SHA256_DIGEST_LENGTH];
    constexpr unsigned int size = SHA256_DIGEST_LENGTH;
    if (SHA256_Final(digest, &context(state_)) != 1) throw InternalError("OpenSSL: SHA256_Final failed");
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
