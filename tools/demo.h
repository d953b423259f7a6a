/* demo.h — `weir demo` (demo.c). */
#ifndef WEIR_TOOLS_DEMO_H
#define WEIR_TOOLS_DEMO_H

int weir_demo_main(int argc, char **argv);

#endif
