#ifndef POLYVOICE_CLINUX_SHIM_H
#define POLYVOICE_CLINUX_SHIM_H
/* Linux system headers Glibc's Swift module leaves out: epoll, eventfd, timerfd, netlink, getifaddrs,
   malloc_trim, pthread_setname_np,
   pipe2, environ, posix_spawn_file_actions_addclosefrom_np. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_addr.h>
#include <sched.h>
#include <malloc.h>

/* Netlink constants defined through macros Swift cannot import. */
static inline unsigned int pv_rtmgrp_link(void) { return RTMGRP_LINK; }
static inline unsigned int pv_rtmgrp_ipv4_ifaddr(void) { return RTMGRP_IPV4_IFADDR; }
static inline unsigned int pv_rtmgrp_ipv6_ifaddr(void) { return RTMGRP_IPV6_IFADDR; }

/* setns(2) is declared only under _GNU_SOURCE; tests use it to enter a network namespace they created. */
extern int setns(int fd, int nstype);
static inline int pv_setns(int fd, int nstype) { return setns(fd, nstype); }

/* pthread_setname_np(3) too: PolyCore's DetachedThread names its threads, as Foundation's Thread did. */
#include <pthread.h>
extern int pthread_setname_np(pthread_t thread, const char *name);
static inline int pv_set_thread_name(const char *name) { return pthread_setname_np(pthread_self(), name); }

/* pipe2(2) and environ, for PolyCore's ChildProcess (also _GNU_SOURCE only). */
#include <fcntl.h>
extern int pipe2(int fds[2], int flags);
static inline int pv_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
extern char **environ;
static inline char **pv_environment(void) { return environ; }
/* A spawned child keeps only descriptors 0-2 (as Foundation's Process did): whatever else the parent has open
   without O_CLOEXEC (sockets of other libraries, a test runner's) must not outlive it in the child. */
#include <spawn.h>
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
static inline int pv_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
#endif
