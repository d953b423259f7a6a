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
 * Only the tests' own process is affected: tests/CMakeLists.txt links this
 * file into every test binary under TSan only, and nothing in weir or in the
 * tests uses rand_r.
 */
#include <stdlib.h>

int rand_r(unsigned int *seed)
{
    static unsigned int k;
    (void)seed;
    return (int)(0x358000u + (k++ % 64u) * 0x100u);
}
