#ifndef LEDGER_CCRYPTO_SHIM_H
#define LEDGER_CCRYPTO_SHIM_H
/* The ledger uses the low-level SHA-256 calls on its hot path; keep them quiet. */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <openssl/sha.h>
#include <openssl/rand.h>
#include <openssl/asn1.h>
#include <openssl/core_names.h>
#endif
