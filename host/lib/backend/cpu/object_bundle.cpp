// Several relocatable objects carried as one artifact (a module compiled in
// parts, compile_module): a GNU ar archive with a symbol table, written
// deterministically (no times, owners or modes), so the same parts give the
// same bytes and an AOT copy links with any linker as it is. The cache, the
// remote tier and AOT copies treat an artifact as opaque bytes; only the JIT,
// which links objects, looks inside.
#include "weft/backend/cpu_compiler.hpp"

#include <llvm/Object/Archive.h>
#include <llvm/Object/ArchiveWriter.h>
#include <llvm/Support/MemoryBuffer.h>

#include <cstring>

namespace weft::backend {

namespace {

constexpr std::string_view archive_magic = "!<arch>\n";
constexpr char elf_magic[4] = {0x7f, 'E', 'L', 'F'};

std::string message_of(llvm::Error e) { return llvm::toString(std::move(e)); }

} // namespace

bool is_object_bundle(std::string_view bytes) { return bytes.substr(0, archive_magic.size()) == archive_magic; }

std::vector<char> bundle_objects(const std::vector<std::vector<char>> &objects) {
    if (objects.empty()) throw std::invalid_argument("bundle_objects: no objects");
    if (objects.size() == 1) return objects.front();
    if (objects.size() > max_bundled_objects)
        throw std::invalid_argument("bundle_objects: " + std::to_string(objects.size()) + " objects, more than " +
                                    std::to_string(max_bundled_objects));
    std::vector<std::string> names;
    for (std::size_t i = 0; i < objects.size(); ++i) names.push_back("part" + std::to_string(i + 1) + ".o");
    std::vector<llvm::NewArchiveMember> members;
    for (std::size_t i = 0; i < objects.size(); ++i) {
        llvm::NewArchiveMember m(llvm::MemoryBufferRef(llvm::StringRef(objects[i].data(), objects[i].size()), names[i]));
        m.MemberName = names[i];
        members.push_back(std::move(m));
    }
    std::string warnings;
    auto archive = llvm::writeArchiveToBuffer(members, llvm::SymtabWritingMode::NormalSymtab,
                                              llvm::object::Archive::K_GNU, /*Deterministic=*/true, /*Thin=*/false,
                                              [&](llvm::Error e) { warnings += message_of(std::move(e)) + "; "; });
    if (!archive) throw BackendError("cannot bundle " + std::to_string(objects.size()) + " objects: " +
                                     message_of(archive.takeError()) + (warnings.empty() ? "" : " (" + warnings + ")"));
    return std::vector<char>((*archive)->getBufferStart(), (*archive)->getBufferEnd());
}

std::vector<std::vector<char>> unbundle_objects(std::vector<char> bytes) {
    std::vector<std::vector<char>> objects;
    if (!is_object_bundle(std::string_view(bytes.data(), bytes.size()))) {
        objects.push_back(std::move(bytes));
        return objects;
    }
    const auto malformed = [&](const std::string &why) {
        return BackendError("malformed object bundle (an ar archive of " + std::to_string(bytes.size()) + " bytes): " + why);
    };
    llvm::Error error = llvm::Error::success();
    llvm::object::Archive archive(llvm::MemoryBufferRef(llvm::StringRef(bytes.data(), bytes.size()), "bundle"), error);
    if (error) throw malformed(message_of(std::move(error)));
    llvm::Error walk = llvm::Error::success();
    // A member's problem ends the walk, whose own error must then be consumed.
    const auto bad_member = [&](const std::string &why) {
        llvm::consumeError(std::move(walk));
        return malformed("member " + std::to_string(objects.size() + 1) + why);
    };
    for (const llvm::object::Archive::Child &child : archive.children(walk)) {
        auto data = child.getBuffer();
        if (!data) throw bad_member(": " + message_of(data.takeError()));
        // LLVM's reader trusts a member header's size when the archive is cut
        // short (AddressSanitizer found the read past the end): check it here.
        const char *const end = bytes.data() + bytes.size();
        if (data->data() < bytes.data() || data->data() > end ||
            data->size() > static_cast<std::size_t>(end - data->data()))
            throw bad_member(" runs past the end of the bundle");
        if (data->size() < sizeof elf_magic || std::memcmp(data->data(), elf_magic, sizeof elf_magic) != 0)
            throw bad_member(" is not an ELF object");
        if (objects.size() == max_bundled_objects)
            throw bad_member(": more than " + std::to_string(max_bundled_objects) + " members");
        objects.emplace_back(data->begin(), data->end());
    }
    if (walk) throw malformed(message_of(std::move(walk)));
    if (objects.size() < 2) throw malformed(std::to_string(objects.size()) + " members; a bundle holds 2 or more");
    return objects;
}

} // namespace weft::backend
