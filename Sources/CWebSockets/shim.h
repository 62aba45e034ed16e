#ifndef POLYVOICE_CWEBSOCKETS_SHIM_H
#define POLYVOICE_CWEBSOCKETS_SHIM_H
#include <libwebsockets.h>

/* LWS_PRE is a macro expression; lws_set_log_level's logger is variadic-typed. */
static inline size_t pv_lws_pre(void) { return LWS_PRE; }
static inline void pv_lws_silence_logs(void) { lws_set_log_level(0, NULL); }

/* Context options are 64-bit shift macros. */
static inline uint64_t pv_lws_option_disable_ipv6(void) { return LWS_SERVER_OPTION_DISABLE_IPV6; }
static inline uint64_t pv_lws_option_ssl_global_init(void) { return LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT; }
static inline int pv_lws_context_port_no_listen(void) { return CONTEXT_PORT_NO_LISTEN; }

/* The listening port of a server context's default vhost (port 0 asks the kernel for one). */
static inline int pv_lws_listen_port(struct lws_context *context) {
    struct lws_vhost *vhost = lws_get_vhost_by_name(context, "default");
    return vhost ? lws_get_vhost_listen_port(vhost) : -1;
}
#endif
