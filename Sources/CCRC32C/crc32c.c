#include "ccrc32c.h"
#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>

int ledger_crc32c_hardware(void) { return __builtin_cpu_supports("sse4.2") ? 1 : 0; }

__attribute__((target("sse4.2")))
uint32_t ledger_crc32c_update(uint32_t crc, const void *bytes, size_t length) {
    const unsigned char *p = (const unsigned char *)bytes;
    uint64_t value = (uint32_t)~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        value = _mm_crc32_u64(value, word);
        p += 8;
        length -= 8;
    }
    uint32_t small = (uint32_t)value;
    while (length > 0) {
        small = _mm_crc32_u8(small, *p++);
        length--;
    }
    return ~small;
}

#elif defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif

int ledger_crc32c_hardware(void) { return (getauxval(AT_HWCAP) & HWCAP_CRC32) ? 1 : 0; }

__attribute__((target("+crc")))
uint32_t ledger_crc32c_update(uint32_t crc, const void *bytes, size_t length) {
    const unsigned char *p = (const unsigned char *)bytes;
    uint32_t value = ~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        value = __builtin_aarch64_crc32cx(value, word);
        p += 8;
        length -= 8;
    }
    while (length > 0) {
        value = __builtin_aarch64_crc32cb(value, *p++);
        length--;
    }
    return ~value;
}

#else
int ledger_crc32c_hardware(void) { return 0; }
uint32_t ledger_crc32c_update(uint32_t crc, const void *bytes, size_t length) {
    (void)bytes;
    (void)length;
    return crc; /* never called: ledger_crc32c_hardware() is 0 */
}
#endif
