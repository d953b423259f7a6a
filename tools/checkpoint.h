/* checkpoint.h — `weir checkpoint inspect PATH`: the checkpoints a folder
 * holds, file by file, and which one a restore would take
 * (weir/checkpoint.h, docs/CHECKPOINTS.md). */
#ifndef WEIR_TOOLS_CHECKPOINT_H
#define WEIR_TOOLS_CHECKPOINT_H

/* argv[0] is "checkpoint". Returns the exit status: 0 (a checkpoint that
 * verifies is there), 1 (none is: each problem was printed), 2 (bad usage). */
int weir_checkpoint_main(int argc, char **argv);

#endif
