#ifndef TRAITBRIDGE_CLIBCRYPTO_SHIM_H
#define TRAITBRIDGE_CLIBCRYPTO_SHIM_H

// OpenSSL 3.0's libcrypto, seen from Swift. Only TraitBridgeMatterCrypto imports this module.
// No shim functions: every call used (EVP AES-128-CCM, PKCS5_PBKDF2_HMAC, EC_POINT / BIGNUM on
// P-256, BN_priv_rand_range, CRYPTO_memcmp, the ERR queue) is a plain function, and the constants
// used (EVP_CTRL_CCM_*, NID_X9_62_prime256v1, BN_FLG_CONSTTIME) are integer macros Swift imports.
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>

#endif
