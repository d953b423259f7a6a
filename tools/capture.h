/* capture.h — `weir capture` (capture.c): convert, validate and summarize
 * a capture. Inside it: the checker every subcommand that reads a capture
 * runs (capture_validate.h), the read loop that feeds it and a visitor
 * (capture_read.h), the summary report (capture_summary.h) and the chrome
 * trace writer (capture_chrome_trace.h). Single-threaded, like the tool.
 */
#ifndef WEIR_TOOLS_CAPTURE_H
#define WEIR_TOOLS_CAPTURE_H

/* `weir capture ARGS...`: argv[0] is "capture". Returns the exit status. */
int weir_capture_main(int argc, char **argv);

#endif
