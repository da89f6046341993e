#include "weft/support/build_identity.hpp"

#include <cstdint>
#include <cstring>

#include <elf.h>
#include <link.h>

namespace weft {

namespace {

struct Search {
    std::uintptr_t address = 0; // some code of this image
    std::string id;
};

/// The NT_GNU_BUILD_ID note in one PT_NOTE segment, hex, or "".
std::string build_id_note(const unsigned char *p, std::size_t size) {
    std::size_t at = 0;
    const auto align4 = [](std::size_t n) { return (n + 3) & ~std::size_t(3); };
    while (at + sizeof(ElfW(Nhdr)) <= size) {
        ElfW(Nhdr) header;
        std::memcpy(&header, p + at, sizeof header);
        const std::size_t name_at = at + sizeof header;
        const std::size_t desc_at = name_at + align4(header.n_namesz);
        const std::size_t next = desc_at + align4(header.n_descsz);
        if (next > size || desc_at + header.n_descsz > size) return {};
        if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 && std::memcmp(p + name_at, "GNU", 4) == 0) {
            static const char digits[] = "0123456789abcdef";
            std::string hex;
            for (std::size_t i = 0; i < header.n_descsz; ++i) {
                hex += digits[p[desc_at + i] >> 4];
                hex += digits[p[desc_at + i] & 15];
            }
            return hex;
        }
        at = next;
    }
    return {};
}

int visit(dl_phdr_info *info, std::size_t, void *data) {
    auto &search = *static_cast<Search *>(data);
    bool ours = false;
    for (int i = 0; i < info->dlpi_phnum && !ours; ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
        ours = ph.p_type == PT_LOAD && search.address >= begin && search.address < begin + ph.p_memsz;
    }
    if (!ours) return 0;
    for (int i = 0; i < info->dlpi_phnum && search.id.empty(); ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type == PT_NOTE)
            search.id = build_id_note(reinterpret_cast<const unsigned char *>(info->dlpi_addr + ph.p_vaddr), ph.p_memsz);
    }
    return 1;
}

} // namespace

const std::string &build_identity() {
    static const std::string id = [] {
        Search search;
        search.address = reinterpret_cast<std::uintptr_t>(&build_identity);
        dl_iterate_phdr(visit, &search);
        return search.id;
    }();
    return id;
}

} // namespace weft
