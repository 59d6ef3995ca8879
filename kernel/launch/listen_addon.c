/*
 * tsgpu_listen.node: the kernel's side of tsgpu-launch (launch.c). Two
 * functions. adoptListener(fd), for each socket the launcher passed on:
 * checks that fd is a listening TCP socket and marks it close-on-exec (it
 * came through exec without, and processes the kernel starts must not hold
 * the kernel's ports; Node.js 20 happens to mark inherited descriptors so as
 * it starts, which is not promised anywhere), and returns its port.
 * closeOnExec(fd): marks fd close-on-exec (the type checker's channel and
 * stderr, early_checker.c: a process the kernel starts must not hold them,
 * or the checker would outlive the kernel); true when done.
 * listenTcp(port): a close-on-exec socket listening on 0.0.0.0:port, as a
 * descriptor, or -errno: `tsgpu launch` makes its comm port so on the main
 * thread before it sends the gateway the port, and the socket thread, which
 * answers on it, takes the descriptor over (connections meanwhile wait in
 * the backlog). Small on purpose: it loads in well under a millisecond,
 * before anything else of the kernel.
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <node_api.h>
#include <sys/socket.h>

#include "tcp_listen.h"

/* Marks fd close-on-exec; 0 when done. */
static int close_on_exec(int fd) {
  int flags = fcntl(fd, F_GETFD);
  return flags < 0 || fcntl(fd, F_SETFD, flags | FD_CLOEXEC) != 0 ? -1 : 0;
}

/* The port fd listens on, or -1 when it is not a listening IPv4 TCP socket (it is left as it is then). */
static int listener_port(int fd) {
  int listening = 0;
  socklen_t len = sizeof listening;
  if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening) return -1;
  struct sockaddr_in addr;
  len = sizeof addr;
  if (getsockname(fd, (struct sockaddr *)&addr, &len) != 0 || addr.sin_family != AF_INET) return -1;
  if (close_on_exec(fd) != 0) return -1;
  return ntohs(addr.sin_port);
}

/* The one argument, a file descriptor, or -1 (a TypeError is pending then). */
static int32_t fd_argument(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value arg;
  int32_t fd = -1;
  if (napi_get_cb_info(env, info, &argc, &arg, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, arg, &fd) != napi_ok || fd < 0) {
    napi_throw_type_error(env, NULL, "expected a file descriptor (a non-negative integer) for fd");
    return -1;
  }
  return fd;
}

static napi_value AdoptListener(napi_env env, napi_callback_info info) {
  int32_t fd = fd_argument(env, info);
  if (fd < 0) return NULL;
  napi_value result;
  napi_create_int32(env, listener_port(fd), &result);
  return result;
}

/* A close-on-exec socket listening on 0.0.0.0:port (Node.js's backlog, 511), or -errno. */
static int listen_tcp(int port) {
  struct in_addr any = {htonl(INADDR_ANY)};
  return tcp_listen(&any, port, 511, SOCK_CLOEXEC);
}

static napi_value ListenTcp(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value arg, result;
  int32_t port = -1;
  if (napi_get_cb_info(env, info, &argc, &arg, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, arg, &port) != napi_ok || port <= 0 || port > 65535) {
    napi_throw_type_error(env, NULL, "expected a TCP port (1-65535) for port");
    return NULL;
  }
  napi_create_int32(env, listen_tcp(port), &result);
  return result;
}

static napi_value CloseOnExec(napi_env env, napi_callback_info info) {
  int32_t fd = fd_argument(env, info);
  if (fd < 0) return NULL;
  napi_value result;
  napi_get_boolean(env, close_on_exec(fd) == 0, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "adoptListener", NAPI_AUTO_LENGTH, AdoptListener, NULL, &fn);
  napi_set_named_property(env, exports, "adoptListener", fn);
  napi_create_function(env, "closeOnExec", NAPI_AUTO_LENGTH, CloseOnExec, NULL, &fn);
  napi_set_named_property(env, exports, "closeOnExec", fn);
  napi_create_function(env, "listenTcp", NAPI_AUTO_LENGTH, ListenTcp, NULL, &fn);
  napi_set_named_property(env, exports, "listenTcp", fn);
  return exports;
}
