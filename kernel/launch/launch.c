/*
 * tsgpu-launch CONNECTION_FILE COMMAND [ARGS...]
 *
 * The first program of a kernel's process (the kernelspec's argv[0]): it
 * binds and listens on the five TCP ports of the connection file, then
 * replaces itself with COMMAND (Node.js running the kernel), which inherits
 * the listening sockets and hands them to zeromq (ZMQ_USE_FD). A client
 * connects its sockets a few milliseconds after it starts the kernel; a port
 * nobody listens on yet refuses it, and zeromq tries again only 100-200 ms
 * later. Listening from the first millisecond, the kernel is reached as soon
 * as Node.js has loaded it, not on the client's next retry.
 *
 * The sockets are named to the kernel in TSGPU_LISTEN_FDS
 * ("pid=PID;shell=FD:PORT;iopub=FD:PORT;control=FD:PORT;stdin=FD:PORT;hb=FD:PORT").
 * Whenever it cannot do this (not tcp, an address that is not IPv4, a file it
 * cannot read or parse, a port it cannot bind), it binds nothing and runs
 * COMMAND as it is: the kernel binds its ports itself and reports any error.
 *
 * tsgpu-launch --checker KEY COMMAND [ARGS...]
 *
 * A kernel that Enterprise Gateway launches (`tsgpu launch`) has no
 * connection file: it chooses its ports itself. What the launcher does for it
 * is start the kernel's type checker process before running COMMAND
 * (early_checker.c).
 *
 * Either way it adds the kernel's malloc setting to GLIBC_TUNABLES before it runs COMMAND, keeping the
 * user's own tunables (malloc_tunables.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "early_checker.h"
#include "malloc_tunables.h"
#include "small_file.h"
#include "tcp_listen.h"

#define MAX_FILE (64 * 1024)
#define N_PORTS 5

static const char *const kPortKeys[N_PORTS] = {"shell_port", "iopub_port", "control_port", "stdin_port", "hb_port"};
static const char *const kNames[N_PORTS] = {"shell", "iopub", "control", "stdin", "hb"};

struct Info {
  char transport[16];
  char ip[64];
  long ports[N_PORTS];
};

/* The JSON scanner: a cursor over the file's text. */
struct Cursor {
  const char *p, *end;
};

static void skip_ws(struct Cursor *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

/* Reads a string into out (at most cap-1 bytes, escapes kept as they are); 0 when it is not one or too long. */
static int read_string(struct Cursor *c, char *out, size_t cap) {
  size_t n = 0;
  if (c->p >= c->end || *c->p != '"') return 0;
  c->p++;
  while (c->p < c->end && *c->p != '"') {
    if (*c->p == '\\' && c->p + 1 < c->end) {
      if (n + 2 >= cap) return 0;
      out[n++] = *c->p++;
    }
    if (n + 1 >= cap) return 0;
    out[n++] = *c->p++;
  }
  if (c->p >= c->end) return 0;
  c->p++;
  out[n] = 0;
  return 1;
}

/* Skips any JSON value (nested objects and arrays included); 0 at malformed text. */
static int skip_value(struct Cursor *c) {
  int depth = 0;
  char scratch[MAX_FILE];
  do {
    skip_ws(c);
    if (c->p >= c->end) return 0;
    char ch = *c->p;
    if (ch == '"') {
      if (!read_string(c, scratch, sizeof scratch)) return 0;
    } else if (ch == '{' || ch == '[') {
      depth++;
      c->p++;
    } else if (ch == '}' || ch == ']') {
      if (--depth < 0) return 0;
      c->p++;
    } else {
      while (c->p < c->end && !strchr(",}] \t\r\n", *c->p)) c->p++;
    }
    skip_ws(c);
    if (depth > 0 && c->p < c->end && (*c->p == ',' || *c->p == ':')) c->p++;
  } while (depth > 0);
  return 1;
}

/* Fills info from the connection file's top-level fields; 0 when the text is not a JSON object. */
static int parse(const char *text, size_t len, struct Info *info) {
  struct Cursor c = {text, text + len};
  char key[64], value[64];
  skip_ws(&c);
  if (c.p >= c.end || *c.p++ != '{') return 0;
  for (;;) {
    skip_ws(&c);
    if (c.p < c.end && *c.p == '}') return 1;
    if (!read_string(&c, key, sizeof key)) return 0;
    skip_ws(&c);
    if (c.p >= c.end || *c.p++ != ':') return 0;
    skip_ws(&c);
    const char *start = c.p;
    int port = -1;
    for (int i = 0; i < N_PORTS; i++)
      if (!strcmp(key, kPortKeys[i])) port = i;
    if (port >= 0 && c.p < c.end && *c.p >= '0' && *c.p <= '9') {
      char *after;
      info->ports[port] = strtol(c.p, &after, 10);
      c.p = after;
    } else if ((!strcmp(key, "ip") || !strcmp(key, "transport")) && c.p < c.end && *c.p == '"') {
      if (!read_string(&c, value, sizeof value)) return 0;
      strcpy(!strcmp(key, "ip") ? info->ip : info->transport, value);
    } else {
      c.p = start;
      if (!skip_value(&c)) return 0;
    }
    skip_ws(&c);
    if (c.p < c.end && *c.p == ',') { c.p++; continue; }
    if (c.p < c.end && *c.p == '}') return 1;
    return 0;
  }
}

/* A listening socket on ip:port that survives exec (no close-on-exec), with zeromq's default backlog; or -1. */
static int listen_on(const struct in_addr *ip, long port) {
  int fd = tcp_listen(ip, port, 100, 0);
  return fd < 0 ? -1 : fd;
}

/* Binds the connection file's ports and names them in TSGPU_LISTEN_FDS; binds nothing if any step fails. */
static void prebind(const char *file) {
  static char text[MAX_FILE + 1];
  ssize_t got = read_small_file(file, text, MAX_FILE);
  if (got < 0) return;
  size_t len = (size_t)got;
  struct Info info;
  memset(&info, 0, sizeof info);
  strcpy(info.transport, "tcp");
  if (!parse(text, len, &info) || strcmp(info.transport, "tcp") != 0) return;
  struct in_addr ip;
  if (inet_pton(AF_INET, info.ip, &ip) != 1) return;
  int fds[N_PORTS];
  char env[256];
  int n = snprintf(env, sizeof env, "pid=%ld", (long)getpid());
  for (int i = 0; i < N_PORTS; i++) {
    fds[i] = listen_on(&ip, info.ports[i]);
    if (fds[i] < 0) {
      for (int j = 0; j < i; j++) close(fds[j]);
      return;
    }
    n += snprintf(env + n, sizeof env - n, ";%s=%d:%ld", kNames[i], fds[i], info.ports[i]);
  }
  setenv("TSGPU_LISTEN_FDS", env, 1);
}

int main(int argc, char **argv) {
  int checker = argc >= 2 && !strcmp(argv[1], "--checker");
  if (argc < (checker ? 4 : 3)) {
    fprintf(stderr, "usage: tsgpu-launch CONNECTION_FILE COMMAND [ARGS...]\n"
                    "       tsgpu-launch --checker KEY COMMAND [ARGS...]\n");
    return 2;
  }
  unsetenv("TSGPU_LISTEN_FDS");
  unsetenv("TSGPU_EARLY_CHECKER");
  char **command = argv + (checker ? 3 : 2);
  if (checker) start_early_checker(argv[2]);
  else prebind(argv[1]);
  /* The kernel's malloc setting, added to the user's own GLIBC_TUNABLES (glibc reads them as the process starts,
   * so Node.js cannot set them for itself; a kernelspec's env would replace the user's). */
  putenv(malloc_tunables_entry());
  execvp(command[0], command);
  fprintf(stderr, "tsgpu-launch: cannot run %s: %s\n", command[0], strerror(errno));
  return 127;
}
