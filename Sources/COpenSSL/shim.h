#ifndef POLYVOICE_COPENSSL_SHIM_H
#define POLYVOICE_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/ec.h>
#include <openssl/bio.h>
#include <openssl/x509_vfy.h>

/* Function-like macros in OpenSSL 3 that Swift cannot import. */
static inline int pv_ssl_ctx_set_min_proto_version(SSL_CTX *c, int v) { return (int)SSL_CTX_set_min_proto_version(c, v); }
static inline int pv_ssl_ctx_set_max_proto_version(SSL_CTX *c, int v) { return (int)SSL_CTX_set_max_proto_version(c, v); }
static inline long pv_ssl_set_mtu(SSL *s, long mtu) { return SSL_set_mtu(s, mtu); }
static inline long pv_ssl_set_options_no_query_mtu(SSL *s) { return (long)SSL_set_options(s, SSL_OP_NO_QUERY_MTU); }
static inline size_t pv_bio_ctrl_pending(BIO *b) { return BIO_ctrl_pending(b); }
static inline long pv_bio_set_mem_eof_return(BIO *b, int v) { return BIO_set_mem_eof_return(b, v); }
static inline long pv_dtls_get_timeout(SSL *s, struct timeval *tv) { return DTLSv1_get_timeout(s, tv); }
static inline long pv_dtls_handle_timeout(SSL *s) { return DTLSv1_handle_timeout(s); }
static inline EVP_PKEY *pv_evp_ec_p256_gen(void) { return EVP_EC_gen("P-256"); }
static inline int pv_ssl_ctx_set_ecdh_auto(SSL_CTX *c) { return (int)SSL_CTX_set_ecdh_auto(c, 1); }
/* Frees the record layer's read and write buffers (about 17 KB each) whenever they are empty: after a DTLS
 * handshake an endpoint only sees the odd alert, and a bridge holds one per call. */
static inline long pv_ssl_ctx_set_release_buffers(SSL_CTX *c) { return SSL_CTX_set_mode(c, SSL_MODE_RELEASE_BUFFERS); }
static inline long pv_ssl_set_tlsext_host_name(SSL *s, const char *name) { return SSL_set_tlsext_host_name(s, name); }
#endif
