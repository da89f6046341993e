#include "weft/codegen/runtime_headers.hpp"

#include "weft/support/error.hpp"
#include "weft/support/sha256.hpp"

#include <atomic>
#include <fstream>
#include <system_error>
#include <unistd.h>

namespace weft::codegen {

const std::string &runtime_header_digest() {
    static const std::string digest = [] {
        Sha256 h;
        h.field("weft.runtime-headers.v1");
        for (const EmbeddedHeader &e : runtime_headers()) h.field(e.path).field(e.text);
        return h.hex();
    }();
    return digest;
}

std::filesystem::path materialize_runtime_headers(const std::filesystem::path &root) {
    namespace fs = std::filesystem;
    const fs::path dir = root / runtime_header_digest().substr(0, 16);
    if (fs::exists(dir / "weft" / "rt" / "runtime.h")) return dir;
    // Written in a private folder, then renamed into place: readers see all or nothing.
    // Unique per process and call: threads of one process race here too.
    static std::atomic<unsigned> counter{0};
    const fs::path staging = root / (".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
                                     runtime_header_digest().substr(0, 8));
    std::error_code ec;
    fs::remove_all(staging, ec);
    for (const EmbeddedHeader &e : runtime_headers()) {
        const fs::path file = staging / e.path;
        fs::create_directories(file.parent_path());
        std::ofstream out(file, std::ios::binary);
        out << e.text;
        if (!out) throw UserError("cannot write the runtime header " + file.string());
    }
    fs::rename(staging, dir, ec);
    if (ec) {
        fs::remove_all(staging, ec); // another process won the race: its copy is identical
        if (!fs::exists(dir / "weft" / "rt" / "runtime.h"))
            throw UserError("cannot publish the runtime headers in " + dir.string());
    }
    return dir;
}

} // namespace weft::codegen
