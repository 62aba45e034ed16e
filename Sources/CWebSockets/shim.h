#ifndef POLYVOICE_CWEBSOCKETS_SHIM_H
#define POLYVOICE_CWEBSOCKETS_SHIM_H
#include <libwebsockets.h>

/* LWS_PRE is a macro expression; lws_set_log_level's logger is variadic-typed. */
static inline size_t pv_lws_pre(void) { return LWS_PRE; }
static inline void pv_lws_silence_logs(void) { lws_set_log_level(0, NULL); }
#endif
