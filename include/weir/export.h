/* weir/export.h — the symbol export macro and the attributes the public headers
 * share. weir is built with hidden visibility by default; only declarations
 * marked WEIR_EXPORT form the library's interface. Compilers without GCC's
 * attributes get the macros empty. */
#ifndef WEIR_EXPORT_H
#define WEIR_EXPORT_H

#if defined(__GNUC__)
#define WEIR_EXPORT __attribute__((visibility("default")))
#define WEIR_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define WEIR_NODISCARD __attribute__((warn_unused_result))
#else
#define WEIR_EXPORT
#define WEIR_PRINTF(fmt, args)
#define WEIR_NODISCARD
#endif

/* Not API: what the inline fast paths (weir/operator.h) build on. GCC and
 * clang get their builtins (no <string.h> pulled into every user's file;
 * branch hints); any other C11 or C++ compiler, or a build that defines
 * WEIR_NO_BUILTINS, gets standard C. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(WEIR_NO_BUILTINS)
#define WEIR__MEMCPY(dst, src, n) __builtin_memcpy((dst), (src), (n))
#define WEIR__LIKELY(x) __builtin_expect(!!(x), 1)
#define WEIR__UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#include <string.h>
#define WEIR__MEMCPY(dst, src, n) memcpy((dst), (src), (n))
#define WEIR__LIKELY(x) (x)
#define WEIR__UNLIKELY(x) (x)
#endif

#endif
