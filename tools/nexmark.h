/* nexmark.h — `weir nexmark OPTION=VALUE ... [-o FILE]`: the events a
 * 'nexmark' table with these options reads, one JSON object a line
 * (weir/nexmark.h: weir_nexmark_write_json), to check a query's result
 * outside weir. */
#ifndef WEIR_TOOLS_NEXMARK_H
#define WEIR_TOOLS_NEXMARK_H

/* argv[0] is "nexmark". Returns the exit status: 0, 1 (the file could not
 * be written), 2 (bad usage or options). */
int weir_nexmark_main(int argc, char **argv);

#endif
