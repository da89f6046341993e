// What a module is compiled for: the CPU, or a CUDA architecture as PTX or
// CUBIN. A CPU module's object can also be kept linked into a shared object
// (cpu_shared_object), which a later process maps with dlopen instead of
// linking the object again, and is assembled from its compile units' objects (cpu_unit).
#pragma once

#include <string>
#include <string_view>

namespace weft {

struct Target {
    enum class Kind { Cpu, Cuda };
    enum class Output { Object, Ptx, Cubin, SharedObject, Unit };

    Kind kind = Kind::Cpu;
    int arch = 0; // CUDA compute capability x 10 (90 = sm_90); 0 for the CPU
    Output output = Output::Object;

    static Target cpu() { return {}; }
    static Target cuda_ptx(int arch) { return {Kind::Cuda, arch, Output::Ptx}; }
    static Target cuda_cubin(int arch) { return {Kind::Cuda, arch, Output::Cubin}; }
    static Target cpu_shared_object() { return {Kind::Cpu, 0, Output::SharedObject}; }
    /// One compile unit's object (codegen::CompileUnit), cached under the
    /// unit's key in an entry of its module's name: what a CPU module's
    /// object is assembled from when a unit is unchanged.
    static Target cpu_unit() { return {Kind::Cpu, 0, Output::Unit}; }

    /// "cpu", "cpu-so", "cpu-unit", "cuda-compute_90-ptx", "cuda-sm_90-cubin": stable, used in hashes and file names.
    std::string str() const;
    /// Inverse of str(); throws UserError naming the text.
    static Target parse(std::string_view text);

    friend bool operator==(const Target &, const Target &) = default;
};

} // namespace weft
