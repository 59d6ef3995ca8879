/* glibc's malloc setting for the kernel and its type checker, added to the user's GLIBC_TUNABLES. */
#ifndef TSGPU_MALLOC_TUNABLES_H
#define TSGPU_MALLOC_TUNABLES_H

/*
 * "GLIBC_TUNABLES=..." (a static buffer, for putenv or an environment list): the user's GLIBC_TUNABLES with
 * glibc.malloc.mmap_threshold=131072 added, unless they set a threshold of their own or there is no room to
 * add it (then theirs as it was). Why the threshold: kCheckerMallocTunable in
 * kernel/language/checker_snapshot.ts and kernelEnv in kernel/commands/install.ts.
 */
char *malloc_tunables_entry(void);

#endif
