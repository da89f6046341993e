/* Linked into every shared object a CPU module is kept as (shared_object.cpp).
 *
 * A module's object calls a few functions in the host by name: the runtime
 * headers' host calls (rt_calls.cpp) and __cxa_atexit. The JIT defines them
 * per module; the dynamic loader would look them up in the process, where an
 * executable that links weft statically does not export them. So the shared
 * object defines them itself, hidden (its references bind here, not to the
 * process), as jumps through a table the host fills right after dlopen and
 * before any of the module's code runs. Jumps, not calls: the arguments pass
 * through untouched, whatever their types.
 *
 * __cxa_atexit is redirected to the host's per-module exit handlers, with the
 * table's address as the module's key, so that a module's static destructors
 * run when weft unloads it, as they do for a JIT'd module. */

#if defined(__x86_64__) && defined(__ELF__)

/* In the order of weft_so_host_names. */
#define WEFT_SO_CALLS(X)                                                                                               \
    X(0, weft_rt_disjoint)                                                                                             \
    X(1, weft_rt_deferred_begin)                                                                                       \
    X(2, weft_rt_deferred_private)                                                                                     \
    X(3, weft_rt_deferred_miss_u32)                                                                                    \
    X(4, weft_rt_deferred_flush_u32)                                                                                   \
    X(5, weft_rt_deferred_miss_u64)                                                                                    \
    X(6, weft_rt_deferred_flush_u64)                                                                                   \
    X(7, weft_rt_deferred_miss_f32)                                                                                    \
    X(8, weft_rt_deferred_flush_f32)                                                                                   \
    X(9, weft_rt_deferred_miss_f64)                                                                                    \
    X(10, weft_rt_deferred_flush_f64)                                                                                  \
    X(11, weft_rt_tape_take)                                                                                           \
    X(12, weft_rt_tape_give)
#define WEFT_SO_ATEXIT 13
#define WEFT_SO_SLOTS 14

__attribute__((visibility("hidden"))) void *weft_so_host_table[WEFT_SO_SLOTS];

#define WEFT_SO_NAME(index, name) #name,
static const char *const weft_so_host_names[WEFT_SO_SLOTS + 1] = {WEFT_SO_CALLS(WEFT_SO_NAME) "__cxa_atexit", 0};

#define WEFT_SO_STUB(index, name)                                                                                      \
    __asm__(".text\n"                                                                                                  \
            ".globl " #name "\n"                                                                                       \
            ".hidden " #name "\n"                                                                                      \
            ".type " #name ",@function\n" #name ":\n"                                                                  \
            "    jmp *weft_so_host_table+8*" #index "(%rip)\n"                                                         \
            ".size " #name ",.-" #name "\n");
WEFT_SO_CALLS(WEFT_SO_STUB)

/* __cxa_atexit(fn, arg, dso): the third argument becomes the table's address. */
__asm__(".text\n"
        ".globl __cxa_atexit\n"
        ".hidden __cxa_atexit\n"
        ".type __cxa_atexit,@function\n"
        "__cxa_atexit:\n"
        "    leaq weft_so_host_table(%rip), %rdx\n"
        "    jmp *weft_so_host_table+8*13(%rip)\n"
        ".size __cxa_atexit,.-__cxa_atexit\n");

/* The one symbol the host looks up: the table to fill, and the names of its
 * slots (NULL-terminated), so that a shared object made by another weft build
 * is refused rather than called through the wrong slots. */
void **weft_so_host_table_of(const char *const **names) {
    *names = weft_so_host_names;
    return weft_so_host_table;
}

#endif
