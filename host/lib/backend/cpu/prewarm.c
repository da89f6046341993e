/* A tiny object the CPU JIT links once on its preparing thread (jit.cpp,
 * CpuJit::prepare), so that JITLink's code is paged in and its first-use
 * paths have run before a module is loaded: in a new process the first link
 * spent most of its time faulting in LLVM's code (issue 20). It has what a
 * generated module's object has: code, data, a relocation to a libc
 * function resolved from the process, and unwind tables. */
#include <string.h>

static float weft_prewarm_table[16] = {1.0f};

void weft_prewarm_entry(float *out, unsigned n) {
    memset(out, 0, (n < 16 ? n : 16) * sizeof(float));
    for (unsigned i = 0; i < n && i < 16; ++i) out[i] += weft_prewarm_table[i];
}
