// libFuzzer target for the files a trust policy reads from disk: signature
// files (<manifest>.sig), allow-lists and PEM public keys. The first byte
// picks the reader; the rest is the file's text. Any text must end in a
// verdict or a UserError: no crash, no unbounded work.
#include "weft/support/error.hpp"
#include "weft/trust/ed25519.hpp"
#include "weft/trust/plugin_trust.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <unistd.h>

namespace {

/// A signed-policy checker with one trusted key, made once.
const weft::trust::PluginTrust &checker() {
    static const weft::trust::PluginTrust *trust = [] {
        const std::filesystem::path dir =
            std::filesystem::temp_directory_path() / ("weft_trust_fuzzer_" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        std::ofstream(dir / "key.pem") << "-----BEGIN PUBLIC KEY-----\n"
                                          "MCowBQYDK2VwAyEANxJvbsWjreY5K8qMJU0ulf5sRU3DWwCl5Xk5LfbTFNI=\n"
                                          "-----END PUBLIC KEY-----\n";
        weft::trust::TrustPolicy policy;
        policy.mode = weft::trust::TrustMode::Signed;
        policy.trusted_keys_dir = dir;
        auto *t = new weft::trust::PluginTrust(policy);
        std::filesystem::remove_all(dir);
        return t;
    }();
    return *trust;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size == 0) return 0;
    const std::string text(reinterpret_cast<const char *>(data) + 1, size - 1);
    try {
        switch (data[0] % 3) {
        case 0: {
            weft::trust::PluginBytes plugin{"fuzzed", "/plugins/fuzzed/plugin.toml", "name = \"fuzzed\"\n",
                                            "/plugins/fuzzed/libfuzzed.so", "\x7f" "ELF", {}};
            plugin.files.push_back({"include/fuzzed.h", std::string(64, 'a')});
            const weft::trust::TrustVerdict v = checker().check(plugin, text);
            if (v.accepted()) std::abort(); // no key signs for the fuzzer: nothing may pass
            (void)v.message(weft::trust::TrustMode::Signed);
            break;
        }
        case 1: (void)weft::trust::parse_allow_list(text, "fuzzed.txt"); break;
        default: (void)weft::trust::PublicKey::parse_pem(text, "fuzzed.pem"); break;
        }
    } catch (const weft::UserError &) { // refused, with a message: as it should be
    }
    return 0;
}
