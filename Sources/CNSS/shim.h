#ifndef POLYVOICE_CNSS_SHIM_H
#define POLYVOICE_CNSS_SHIM_H
#include <nss.h>

/* Debian's libsrtp2 does its crypto through NSS and initialises NSS itself, for every cipher it allocates,
   with NSS_INIT_OPTIMIZESPACE: the softoken then keeps its sessions and key objects in 32-bucket hash
   tables. Initialising NSS first the same way but without that flag (its tables then have 1024 buckets)
   is what libsrtp2 then joins. Returns 0 when NSS could not be initialised. */
static inline int pv_nss_init_for_many_sessions(void) {
    return NSS_InitContext("", "", "", "", NULL,
                           NSS_INIT_READONLY | NSS_INIT_NOCERTDB | NSS_INIT_NOMODDB | NSS_INIT_FORCEOPEN |
                               NSS_INIT_NOROOTINIT) != NULL;
}
#endif
