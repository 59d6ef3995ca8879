/* A listening IPv4 TCP socket, for the launcher (launch.c) and its addon (listen_addon.c). */
#ifndef TSGPU_TCP_LISTEN_H
#define TSGPU_TCP_LISTEN_H

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * A socket listening on ip:port with SO_REUSEADDR (what zeromq and Node.js set on their listeners) and the
 * given backlog; `type_flags` is or-ed into SOCK_STREAM (SOCK_CLOEXEC, or 0 for one that survives exec).
 * Returns the descriptor, or -errno.
 */
static inline int tcp_listen(const struct in_addr *ip, long port, int backlog, int type_flags) {
  if (port <= 0 || port > 65535) return -EINVAL;
  int fd = socket(AF_INET, SOCK_STREAM | type_flags, 0);
  if (fd < 0) return -errno;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons((unsigned short)port);
  addr.sin_addr = *ip;
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, backlog) != 0) {
    int e = errno;
    close(fd);
    return -e;
  }
  return fd;
}

#endif
