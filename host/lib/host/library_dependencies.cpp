// What a plugin library needs from the dynamic loader (DT_NEEDED, DT_RUNPATH,
// DT_RPATH), read from the checked bytes, and the rule a trust policy applies
// to it: a trust check covers the plugin's own files, so every library the
// loader would map beside it must come from the system library directories.
#include "loader_internal.hpp"

#include "weft/support/error.hpp"
#include "weft/support/text.hpp"

#include <elf.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace weft {

namespace {

using Ehdr = std::conditional_t<sizeof(void *) == 8, Elf64_Ehdr, Elf32_Ehdr>;
using Phdr = std::conditional_t<sizeof(void *) == 8, Elf64_Phdr, Elf32_Phdr>;
using Dyn = std::conditional_t<sizeof(void *) == 8, Elf64_Dyn, Elf32_Dyn>;

template <class T> std::optional<T> at(std::string_view bytes, std::uint64_t offset) {
    if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return std::nullopt;
    T v;
    std::memcpy(&v, bytes.data() + offset, sizeof v);
    return v;
}

/// The directories the dynamic loader searches by default on this system
/// (after the cache), which only root can write to on Debian. /usr/local/lib
/// is not among them: Debian lets group staff write there.
const std::vector<std::string> &system_library_dirs() {
    static const std::vector<std::string> dirs = {
#if defined(__x86_64__)
        "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
        "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
#endif
        "/lib64", "/usr/lib64", "/lib", "/usr/lib"};
    return dirs;
}

bool is_system_dir(const std::string &dir) {
    const auto &dirs = system_library_dirs();
    std::string d = dir;
    while (d.size() > 1 && d.back() == '/') d.pop_back();
    return std::find(dirs.begin(), dirs.end(), d) != dirs.end();
}

/// Where the first system library directory holds `name`, or "".
std::string system_path(const std::string &name) {
    for (const std::string &dir : system_library_dirs()) {
        struct stat st {};
        const std::string path = dir + "/" + name;
        if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return path;
    }
    return {};
}

std::vector<std::string> split_path_list(const std::string &list) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t colon = list.find(':', start);
        out.push_back(list.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
        if (colon == std::string::npos) return out;
        start = colon + 1;
    }
}

} // namespace

LibraryDependencies read_library_dependencies(std::string_view bytes) {
    LibraryDependencies out;
    const auto header = at<Ehdr>(bytes, 0);
    if (!header || std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0)
        throw UserError("not a valid shared library: no ELF header");
    std::vector<Phdr> segments;
    for (std::uint64_t i = 0; i < header->e_phnum; ++i) {
        const auto p = at<Phdr>(bytes, header->e_phoff + i * header->e_phentsize);
        if (!p) throw UserError("not a valid shared library: program header " + std::to_string(i) + " is cut off");
        segments.push_back(*p);
    }
    const auto dynamic = std::find_if(segments.begin(), segments.end(), [](const Phdr &p) { return p.p_type == PT_DYNAMIC; });
    if (dynamic == segments.end()) return out; // nothing to load beside it
    // A virtual address to a file offset, through the PT_LOAD that maps it.
    auto file_offset = [&](std::uint64_t address) -> std::optional<std::uint64_t> {
        for (const Phdr &p : segments)
            if (p.p_type == PT_LOAD && address >= p.p_vaddr && address - p.p_vaddr < p.p_filesz)
                return p.p_offset + (address - p.p_vaddr);
        return std::nullopt;
    };
    std::uint64_t strtab = 0, strsz = 0;
    std::vector<std::pair<std::int64_t, std::uint64_t>> entries; // (tag, string offset)
    for (std::uint64_t off = dynamic->p_offset; off + sizeof(Dyn) <= dynamic->p_offset + dynamic->p_filesz;
         off += sizeof(Dyn)) {
        const auto d = at<Dyn>(bytes, off);
        if (!d || d->d_tag == DT_NULL) break;
        if (d->d_tag == DT_STRTAB) strtab = d->d_un.d_ptr;
        else if (d->d_tag == DT_STRSZ) strsz = d->d_un.d_val;
        else if (d->d_tag == DT_NEEDED || d->d_tag == DT_RUNPATH || d->d_tag == DT_RPATH)
            entries.emplace_back(d->d_tag, d->d_un.d_val);
    }
    if (entries.empty()) return out;
    const std::optional<std::uint64_t> table = file_offset(strtab);
    if (!table || *table > bytes.size() || bytes.size() - *table < strsz)
        throw UserError("not a valid shared library: its dynamic string table lies outside the file");
    const std::string_view strings = bytes.substr(*table, strsz);
    for (const auto &[tag, offset] : entries) {
        if (offset >= strings.size()) throw UserError("not a valid shared library: a dynamic entry's name lies outside its string table");
        const std::size_t end = strings.find('\0', offset);
        if (end == std::string_view::npos) throw UserError("not a valid shared library: an unterminated dynamic entry name");
        const std::string value(strings.substr(offset, end - offset));
        if (tag == DT_NEEDED) out.needed.push_back(value);
        else
            for (std::string &dir : split_path_list(value)) out.search_dirs.push_back(std::move(dir));
    }
    return out;
}

std::string untrusted_dependency(const LibraryDependencies &deps) {
    if (deps.needed.empty()) return {};
    for (const std::string &dir : deps.search_dirs)
        if (!is_system_dir(dir))
            return "its library needs " + escape_for_display(deps.needed.front()) +
                   (deps.needed.size() > 1 ? " and " + std::to_string(deps.needed.size() - 1) + " more" : std::string()) +
                   " and searches '" + escape_for_display(dir) +
                   "' for them (RUNPATH or RPATH), outside the system library directories: what is found there is "
                   "not covered by the trust check (link it statically, or install it in a system library directory)";
    for (const std::string &name : deps.needed) {
        if (name.find('/') != std::string::npos)
            return "its library needs '" + escape_for_display(name) +
                   "' by path: only libraries from the system library directories are loaded beside a checked plugin";
        if (system_path(name).empty())
            return "its library needs " + escape_for_display(name) +
                   ", which is not in a system library directory (/lib, /usr/lib and their multiarch and lib64 forms): "
                   "what the dynamic loader would find elsewhere is not covered by the trust check (link it "
                   "statically, or install it in a system library directory)";
    }
    return {};
}

std::vector<std::string> system_dependency_paths(const LibraryDependencies &deps) {
    std::vector<std::string> paths;
    for (const std::string &name : deps.needed)
        if (std::string path = system_path(name); !path.empty()) paths.push_back(std::move(path));
    return paths;
}

} // namespace weft
