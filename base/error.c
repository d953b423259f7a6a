/* error.c — weir_strerror() and weir_err_name(), generated from the one
 * WEIR_ERRNO_MAP list so that codes, names and messages cannot drift. */
#include "weir/error.h"

const char *weir_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
#define WEIR__ERRNO_MSG(name, value, msg)                                        \
    case value:                                                                  \
        return msg;
        WEIR_ERRNO_MAP(WEIR__ERRNO_MSG)
#undef WEIR__ERRNO_MSG
    default:
        return "unknown error";
    }
}

const char *weir_err_name(int err)
{
    switch (err) {
    case 0:
        return "OK";
#define WEIR__ERRNO_NAME(name, value, msg)                                       \
    case value:                                                                  \
        return #name;
        WEIR_ERRNO_MAP(WEIR__ERRNO_NAME)
#undef WEIR__ERRNO_NAME
    default:
        return "UNKNOWN";
    }
}
