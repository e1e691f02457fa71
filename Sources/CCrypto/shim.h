#ifndef LEDGER_CCRYPTO_SHIM_H
#define LEDGER_CCRYPTO_SHIM_H
/* The ledger uses the low-level SHA-256/384 calls on its hot path; keep them quiet. */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/bio.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <openssl/sha.h>
#include <openssl/rand.h>
#include <openssl/asn1.h>
#include <openssl/core_names.h>

/* Function-like macros Swift cannot import, as small inline functions. */

/* BIO_get_mem_data: the bytes written so far to a memory BIO. */
static inline long ledger_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_ctrl(bio, BIO_CTRL_INFO, 0, (void *)data);
}

/* The extension flags bits the verifier reads (X509_get_extension_flags). */
static inline uint32_t ledger_EXFLAG_CA(void) { return EXFLAG_CA; }
static inline uint32_t ledger_EXFLAG_CRITICAL(void) { return EXFLAG_CRITICAL; }
static inline uint32_t ledger_EXFLAG_INVALID(void) { return EXFLAG_INVALID; }
static inline uint32_t ledger_KU_KEY_CERT_SIGN(void) { return KU_KEY_CERT_SIGN; }

#endif
