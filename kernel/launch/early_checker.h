/* The type checker's process, started by the launcher before Node.js boots the kernel (early_checker.c). */
#ifndef TSGPU_EARLY_CHECKER_H
#define TSGPU_EARLY_CHECKER_H

/*
 * Starts the checker from the start file named by `key` (see early_checker.c) and names it to the kernel in
 * TSGPU_EARLY_CHECKER; starts nothing and sets nothing when the file is missing, stale or malformed, or when
 * TSGPU_CHECKER_SNAPSHOT=0.
 */
void start_early_checker(const char *key);

#endif
