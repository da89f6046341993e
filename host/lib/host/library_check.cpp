// A plugin library is checked as a file before dlopen sees it. The dynamic
// loader maps segments by the offsets the headers claim; when the file is
// shorter (a copy cut short, a build interrupted mid-write), touching the
// missing pages raises SIGBUS inside dlopen and the host dies instead of
// reporting one bad plugin.
#include "loader_internal.hpp"

#include "weft/support/error.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace weft {

namespace {

#if defined(__x86_64__)
constexpr std::uint16_t host_machine = EM_X86_64;
#elif defined(__aarch64__)
constexpr std::uint16_t host_machine = EM_AARCH64;
#elif defined(__powerpc64__)
constexpr std::uint16_t host_machine = EM_PPC64;
#elif defined(__riscv)
constexpr std::uint16_t host_machine = EM_RISCV;
#else
constexpr std::uint16_t host_machine = EM_NONE; // unknown: the machine is not compared
#endif

constexpr unsigned char host_class = sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char host_data = ELFDATA2LSB;
#else
constexpr unsigned char host_data = ELFDATA2MSB;
#endif

using Ehdr = std::conditional_t<sizeof(void *) == 8, Elf64_Ehdr, Elf32_Ehdr>;
using Phdr = std::conditional_t<sizeof(void *) == 8, Elf64_Phdr, Elf32_Phdr>;

struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

[[noreturn]] void invalid(const std::string &reason) { throw UserError("not a valid shared library: " + reason); }

bool read_at(int fd, void *out, std::size_t size, std::uint64_t offset) {
    auto *p = static_cast<unsigned char *>(out);
    while (size > 0) {
        const ssize_t n = ::pread(fd, p, size, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        size -= static_cast<std::size_t>(n);
        offset += static_cast<std::uint64_t>(n);
    }
    return true;
}

/// `offset + count * entry` fits in `size`, without overflow.
bool covers(std::uint64_t size, std::uint64_t offset, std::uint64_t count, std::uint64_t entry) {
    if (offset > size) return false;
    return count == 0 || entry == 0 || count <= (size - offset) / entry;
}

} // namespace

void check_shared_library_file(const std::filesystem::path &path) {
    const Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
    if (f.fd < 0) throw UserError("cannot open: " + std::string(std::strerror(errno)));
    struct stat st{};
    if (::fstat(f.fd, &st) != 0) throw UserError("cannot stat: " + std::string(std::strerror(errno)));
    if (!S_ISREG(st.st_mode)) invalid("it is not a regular file");
    const auto size = static_cast<std::uint64_t>(st.st_size);

    // The file's first bytes in one read: the identification, the ELF header
    // and, in every library a linker writes, the program header table right
    // after it. A read per piece was most of this check's system calls, paid
    // by every plugin load (bench/plugin_load).
    unsigned char head[4096] = {};
    const std::size_t head_size = static_cast<std::size_t>(std::min<std::uint64_t>(size, sizeof head));
    if (!read_at(f.fd, head, head_size, 0)) invalid("cannot read the ELF header");
    unsigned char ident[EI_NIDENT] = {};
    if (size >= EI_NIDENT) std::memcpy(ident, head, EI_NIDENT);
    if (size < EI_NIDENT || std::memcmp(ident, ELFMAG, SELFMAG) != 0)
        invalid("no ELF header (the file is " + std::to_string(size) + " bytes and does not start with \\x7FELF)");
    if (ident[EI_CLASS] != host_class)
        invalid(std::string("it is a ") + (ident[EI_CLASS] == ELFCLASS32 ? "32-bit" : ident[EI_CLASS] == ELFCLASS64 ? "64-bit" : "unknown-class") +
                " ELF file; this host is " + (host_class == ELFCLASS64 ? "64-bit" : "32-bit"));
    if (ident[EI_DATA] != host_data) invalid("its byte order differs from this host's");

    Ehdr eh{};
    if (size < sizeof eh) invalid("the file is " + std::to_string(size) + " bytes, shorter than an ELF header");
    std::memcpy(&eh, head, sizeof eh);
    if (eh.e_type != ET_DYN) invalid("ELF type " + std::to_string(eh.e_type) + " is not a shared object (ET_DYN)");
    if (host_machine != EM_NONE && eh.e_machine != host_machine)
        invalid("it is built for ELF machine " + std::to_string(eh.e_machine) + "; this host is machine " +
                std::to_string(host_machine));
    if (eh.e_phnum == 0 || eh.e_phentsize != sizeof(Phdr)) invalid("it has no usable program header table");
    if (!covers(size, eh.e_phoff, eh.e_phnum, eh.e_phentsize))
        invalid("the file is " + std::to_string(size) + " bytes, too short for its program header table (truncated?)");
    if (eh.e_shnum != 0 && !covers(size, eh.e_shoff, eh.e_shnum, eh.e_shentsize))
        invalid("the file is " + std::to_string(size) + " bytes, too short for its section header table (truncated?)");
    // The table in one read, or none when the first read already holds it.
    std::vector<Phdr> headers(eh.e_phnum);
    const std::uint64_t table_bytes = std::uint64_t{eh.e_phnum} * sizeof(Phdr);
    if (eh.e_phoff <= head_size && table_bytes <= head_size - eh.e_phoff)
        std::memcpy(headers.data(), head + eh.e_phoff, static_cast<std::size_t>(table_bytes));
    else if (!read_at(f.fd, headers.data(), static_cast<std::size_t>(table_bytes), eh.e_phoff))
        invalid("cannot read the program header table");
    for (const Phdr &ph : headers) {
        if (ph.p_type == PT_LOAD && !covers(size, ph.p_offset, 1, ph.p_filesz))
            invalid("the file is " + std::to_string(size) + " bytes, but a loadable segment ends at byte " +
                    std::to_string(std::uint64_t{ph.p_offset} + ph.p_filesz) + " (truncated?)");
    }
}

} // namespace weft
