# Generates a C file holding viewer/index.html as a byte array, so that
# `weir demo` can write report.html without finding the source tree.
# -DIN=<index.html> -DOUT=<file.c> [-DNAME=<symbol>: weir_viewer_html, or
# weir__live_viewer_html for the library's HTTP server, diag/live.c]
if(NOT NAME)
  set(NAME weir_viewer_html)
endif()
if(NOT EXISTS ${IN})
  message(FATAL_ERROR "weir: ${IN} is missing (the viewer that weir demo embeds)")
endif()
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR size "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT} "/* Generated from viewer/index.html by tools/embed_viewer.cmake. */\n#include <stddef.h>\nextern const unsigned char ${NAME}[];\nextern const size_t ${NAME}_size;\nconst unsigned char ${NAME}[] = {\n${bytes}0};\nconst size_t ${NAME}_size = ${size};\n")
