/*
 * The kernel's type checker process, started by the launcher before Node.js
 * loads the kernel (`tsgpu-launch --checker KEY COMMAND...`).
 *
 * A kernel's first cell waits for its type warnings, and the checker's start
 * from its startup snapshot (about a quarter of a second) is the longest
 * part of a launched kernel's way to its first reply; started here it begins
 * that much before Node.js has booted the kernel. The kernel's own start of
 * it (kernel/language/checker.ts) is what this does earlier, with the same
 * command: the kernel writes it, whenever it starts a checker from a
 * snapshot, to the start file CACHE/checker-start-KEY (CACHE as the kernel
 * finds its cache folder: $TSGPU_CACHE_DIR, else $XDG_CACHE_HOME/tsgpu, else
 * $HOME/.cache/tsgpu; KEY names the installation). The file holds
 * NUL-terminated fields:
 *
 *   "tsgpu-checker-start 1", the snapshot file, the project setup as JSON
 *   without its "cwd" (added here: the kernel's folder), then the command's
 *   arguments (Node.js first).
 *
 * The checker gets an IPC channel as Node.js makes one for a child (a socket
 * pair on fd 3, NODE_CHANNEL_FD, JSON lines), /dev/null for stdin and
 * stdout, and a pipe for stderr. The kernel is told in TSGPU_EARLY_CHECKER
 * ("pid=PID;ipc=FD;stderr=FD;snapshot=FILE") and takes the checker over, or
 * ends it when it would have started another one (another snapshot). A
 * start file that is not this user's, or that others may write, is not
 * read. Any failure here starts nothing and sets nothing: the kernel starts
 * its checker itself, as it does without this launcher.
 */
#define _GNU_SOURCE
#include "early_checker.h"
#include "malloc_tunables.h"
#include "small_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/** The largest start file read (bytes): the setup's ambient declarations are a few KiB. */
#define kMaxStartFile (1 << 20)
/** The most command arguments taken from the start file. */
#define kMaxArgs 64
/** The most environment entries passed on to the checker. */
#define kMaxEnv 4096

static const char kMagic[] = "tsgpu-checker-start 1";

extern char **environ;

/* The kernel's cache folder into out; 0 when no variable names one or it does not fit. */
static int cache_dir(char *out, size_t cap) {
  const char *v;
  int n;
  if ((v = getenv("TSGPU_CACHE_DIR")) && *v) n = snprintf(out, cap, "%s", v);
  else if ((v = getenv("XDG_CACHE_HOME")) && *v) n = snprintf(out, cap, "%s/tsgpu", v);
  else if ((v = getenv("HOME")) && *v) n = snprintf(out, cap, "%s/.cache/tsgpu", v);
  else return 0;
  return n > 0 && (size_t)n < cap;
}

/* s as a JSON string's contents (no quotes) into out; 0 when it does not fit. */
static int json_escape(const char *s, char *out, size_t cap) {
  size_t n = 0;
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    char buf[8];
    const char *piece = buf;
    if (ch == '"' || ch == '\\') { buf[0] = '\\'; buf[1] = (char)ch; buf[2] = 0; }
    else if (ch < 0x20) snprintf(buf, sizeof buf, "\\u%04x", ch);
    else { buf[0] = (char)ch; buf[1] = 0; }
    size_t len = strlen(piece);
    if (n + len + 1 > cap) return 0;
    memcpy(out + n, piece, len);
    n += len;
  }
  out[n] = 0;
  return 1;
}

/* Whether the key is what the kernelspec passes: 1 to 64 lowercase hex digits. */
static int valid_key(const char *key) {
  size_t n = strlen(key);
  if (n == 0 || n > 64) return 0;
  for (size_t i = 0; i < n; i++)
    if (!((key[i] >= '0' && key[i] <= '9') || (key[i] >= 'a' && key[i] <= 'f'))) return 0;
  return 1;
}

/* Whether an environment entry is one the checker must not inherit (or gets in another form). */
static int dropped(const char *entry) {
  static const char *const kDropped[] = {"NODE_OPTIONS=", "NODE_CHANNEL_FD=", "NODE_CHANNEL_SERIALIZATION_MODE=",
                                         "TSGPU_CHECKER_SETUP=", "TSGPU_EARLY_CHECKER=", "TSGPU_LISTEN_FDS=",
                                         "GLIBC_TUNABLES="};
  for (size_t i = 0; i < sizeof kDropped / sizeof kDropped[0]; i++)
    if (!strncmp(entry, kDropped[i], strlen(kDropped[i]))) return 1;
  return 0;
}

/* In the forked child: the checker's descriptors and environment, then its command. Never returns. */
static void exec_checker(int ipc, int err, char **args, char *setup_env) {
  int null = open("/dev/null", O_RDWR);
  if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(err, 2) < 0) _exit(127);
  /* dup2 onto itself keeps close-on-exec: fd 3 must survive the exec. */
  if (ipc == 3) { if (fcntl(3, F_SETFD, 0) < 0) _exit(127); }
  else if (dup2(ipc, 3) < 0) _exit(127);
  for (int fd = 4; fd < 1024; fd++) close(fd);
  static char *envp[kMaxEnv + 5];
  size_t n = 0;
  for (char **e = environ; *e && n < kMaxEnv; e++)
    if (!dropped(*e)) envp[n++] = *e;
  envp[n++] = malloc_tunables_entry();
  envp[n++] = "NODE_CHANNEL_FD=3";
  envp[n++] = "NODE_CHANNEL_SERIALIZATION_MODE=json";
  envp[n++] = setup_env;
  envp[n] = NULL;
  execve(args[0], args, envp);
  _exit(127);
}

void start_early_checker(const char *key) {
  const char *off = getenv("TSGPU_CHECKER_SNAPSHOT");
  if ((off && !strcmp(off, "0")) || !valid_key(key)) return;
  char dir[4096], path[4200];
  if (!cache_dir(dir, sizeof dir) || snprintf(path, sizeof path, "%s/checker-start-%s", dir, key) >= (int)sizeof path) return;

  /* It names a command to run: only a file of this user that nobody else may write. */
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) return;
  static char text[kMaxStartFile + 1];
  ssize_t got = read_small_file(path, text, kMaxStartFile);
  if (got <= 0 || text[got - 1] != 0) return;
  size_t len = (size_t)got;

  /* The fields: magic, snapshot, setup, then the command's arguments. */
  char *fields[kMaxArgs + 3];
  size_t count = 0;
  for (char *p = text; p < text + len && count < kMaxArgs + 3; p += strlen(p) + 1) fields[count++] = p;
  if (count < 4 || strcmp(fields[0], kMagic) != 0) return;
  const char *snapshot = fields[1], *setup = fields[2];
  if (setup[0] != '{' || setup[1] == '}' || setup[1] == 0 || access(snapshot, R_OK) != 0) return;
  char *args[kMaxArgs + 1];
  size_t nargs = 0;
  for (size_t i = 3; i < count; i++) args[nargs++] = fields[i];
  args[nargs] = NULL;
  if (access(args[0], X_OK) != 0) return;

  char cwd[4096], cwd_json[4096 * 6 + 1];
  if (!getcwd(cwd, sizeof cwd) || !json_escape(cwd, cwd_json, sizeof cwd_json)) return;
  size_t env_len = strlen("TSGPU_CHECKER_SETUP={\"cwd\":\"\",") + strlen(cwd_json) + strlen(setup + 1) + 1;
  char *setup_env = malloc(env_len);
  if (!setup_env) return;
  snprintf(setup_env, env_len, "TSGPU_CHECKER_SETUP={\"cwd\":\"%s\",%s", cwd_json, setup + 1);

  /* Descriptors 0-2 closed (a detached start) would be taken by the pair or the pipe below: /dev/null holds them. */
  for (int fd = open("/dev/null", O_RDWR); fd >= 0; fd = open("/dev/null", O_RDWR)) {
    if (fd > 2) { close(fd); break; }
  }
  int sv[2], ep[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) { free(setup_env); return; }
  if (pipe2(ep, O_CLOEXEC) != 0) { close(sv[0]); close(sv[1]); free(setup_env); return; }
  pid_t pid = fork();
  if (pid == 0) exec_checker(sv[1], ep[1], args, setup_env);
  close(sv[1]);
  close(ep[1]);
  free(setup_env);
  /* The kernel (after the exec) reads both: they must survive it. */
  if (pid < 0 || fcntl(sv[0], F_SETFD, 0) != 0 || fcntl(ep[0], F_SETFD, 0) != 0) {
    close(sv[0]);
    close(ep[0]);
    return;
  }
  char env[4300];
  if (snprintf(env, sizeof env, "pid=%ld;ipc=%d;stderr=%d;snapshot=%s", (long)pid, sv[0], ep[0], snapshot) >= (int)sizeof env) {
    /* Too long to name: the kernel never hears of it, so it must not run (closing its channel ends it). */
    close(sv[0]);
    close(ep[0]);
    return;
  }
  setenv("TSGPU_EARLY_CHECKER", env, 1);
}
