/* causal-lens-otf2 [--reason TEXT] DIR: writes DIR's OTF2 archive from its spool. The recorder
 * does this itself at the end of a normal run; this is for a run that aborted or was killed,
 * whose spool holds every rank's events up to its last flush. */
#include <stdio.h>
#include <string.h>

#include "otf2_out.h"

int main(int argc, char **argv) {
  const char *reason = NULL, *dir = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reason") && i + 1 < argc) reason = argv[++i];
    else if (argv[i][0] == '-' || dir) {
      fprintf(stderr, "usage: causal-lens-otf2 [--reason TEXT] DIR\n");
      return 2;
    } else dir = argv[i];
  }
  if (!dir) {
    fprintf(stderr, "usage: causal-lens-otf2 [--reason TEXT] DIR\n");
    return 2;
  }
  return cl_write_archive(dir, reason, stdout);
}
