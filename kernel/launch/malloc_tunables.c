/* See malloc_tunables.h. */
#include "malloc_tunables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define kMallocTunable "glibc.malloc.mmap_threshold=131072"

char *malloc_tunables_entry(void) {
  static char entry[4096];
  const char *current = getenv("GLIBC_TUNABLES");
  int n;
  if (!current || !*current) n = snprintf(entry, sizeof entry, "GLIBC_TUNABLES=%s", kMallocTunable);
  else if (strstr(current, "glibc.malloc.mmap_threshold=")) n = snprintf(entry, sizeof entry, "GLIBC_TUNABLES=%s", current);
  else n = snprintf(entry, sizeof entry, "GLIBC_TUNABLES=%s:%s", current, kMallocTunable);
  /* Too long to add to: the user's value as it was. */
  if (n < 0 || n >= (int)sizeof entry) snprintf(entry, sizeof entry, "GLIBC_TUNABLES=%s", current ? current : "");
  return entry;
}
