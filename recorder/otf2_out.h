/* Turns a trace directory's spool (rawlog.h) into an OTF2 archive beside it. */
#ifndef CAUSAL_LENS_OTF2_OUT_H
#define CAUSAL_LENS_OTF2_OUT_H

#include <stdio.h>

/* Writes <dir>/traces.otf2, traces.def and traces/. external_reason, when not NULL, marks the
 * archive truncated for a reason only the caller knows (e.g. the launcher saw a rank die).
 * Problems go to stderr, one line each naming the file and the byte offset; a summary goes to
 * summary when not NULL. Returns 0 when an archive was written, 1 when nothing could be read. */
int cl_write_archive(const char *dir, const char *external_reason, FILE *summary);

#endif
