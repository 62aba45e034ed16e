#ifndef POLYVOICE_CSRTP_SHIM_H
#define POLYVOICE_CSRTP_SHIM_H
#include <srtp2/srtp.h>

/* Profile setters are macros in libsrtp2. */
static inline void pv_srtp_policy_aes_cm_128_hmac_sha1_80(srtp_crypto_policy_t *p) { srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(p); }
static inline void pv_srtp_policy_aes_gcm_128_16_auth(srtp_crypto_policy_t *p) { srtp_crypto_policy_set_aes_gcm_128_16_auth(p); }
#endif
