/* Reading a small file whole, for the launcher (launch.c, early_checker.c). */
#ifndef TSGPU_SMALL_FILE_H
#define TSGPU_SMALL_FILE_H

#include <stdio.h>
#include <sys/types.h>

/*
 * Reads the file at `path` into buf (cap bytes at most, then a NUL after them: buf holds cap + 1) and returns
 * its length; -1 when it cannot be opened or is longer than cap.
 */
static inline ssize_t read_small_file(const char *path, char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  size_t len = fread(buf, 1, cap, f);
  int whole = feof(f);
  fclose(f);
  if (!whole) return -1;
  buf[len] = 0;
  return (ssize_t)len;
}

#endif
