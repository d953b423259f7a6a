/* weir/export.h — the symbol export macro and the attributes the public headers
 * share. weir is built with hidden visibility by default; only declarations
 * marked WEIR_EXPORT form the library's interface. */
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

#endif
