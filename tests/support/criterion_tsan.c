/* criterion_tsan.c — lets a Criterion test binary start under ThreadSanitizer.
 *
 * Criterion's sandbox (BoxFort) maps its shared "inheritable arena" at a
 * random address between 0x2000_0000_0000 and 0x6000_0000_0000, chosen with
 * rand_r(). Under ThreadSanitizer almost all of that range is TSan's shadow
 * and metadata, and TSan refuses a fixed mapping outside application memory,
 * so every binary dies at start-up with "criterion: Could not initialize
 * inheritable arena: Resource temporarily unavailable" (Criterion issue
 * #274). The only application-memory window in BoxFort's range is the one
 * for PIE binaries, 0x5500_0000_0000 and up. Defining rand_r in the test
 * binary interposes on BoxFort's call (libcriterion calls it through the
 * PLT) and steers the arena into that window: base = 0x2000_0000_0000 +
 * r * 2^24, so r = 0x358000 + k * 0x100 gives 0x5580_0000_0000 + k * 4 GiB,
 * cycling over 64 slots. BoxFort probes each candidate with msync and moves
 * on when it is taken, so a slot next to the binary is harmless.
 *
 * Only BoxFort's calls are steered (the caller is looked up with dladdr):
 * librdkafka calls rand_r too, and gets a real one. tests/CMakeLists.txt
 * links this file into every test binary under TSan only.
 */

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Whether the call comes from Criterion's own library (BoxFort is in it). */
static int from_criterion(const void *ret)
{
    Dl_info info;
    return dladdr(ret, &info) && info.dli_fname && strstr(info.dli_fname, "libcriterion");
}

int rand_r(unsigned int *seed)
{
    static atomic_uint k;
    if (from_criterion(__builtin_return_address(0)))
        return (int)(0x358000u + (atomic_fetch_add(&k, 1) % 64u) * 0x100u);
    /* Anyone else (librdkafka picks brokers and jitters backoffs with it)
     * gets a real rand_r: POSIX's example generator. */
    *seed = *seed * 1103515245u + 12345u;
    return (int)((*seed / 65536u) % 32768u);
}
