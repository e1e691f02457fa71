#include "ccrc32c.h"
#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>

int ledger_crc32c_hardware(void) { return __builtin_cpu_supports("sse4.2") ? 1 : 0; }

/* The crc32 instruction takes 3 cycles but can start one every cycle: one chain of them waits on itself, so
 * buffers of three lanes or more are checksummed as three independent chains, which are then joined. A CRC
 * register is linear in what it started from: running it over LANE more bytes turns a start value `s` into
 * shift(s) ^ (the register over those bytes from 0), where shift multiplies by x^(8 * LANE) modulo the
 * polynomial. So the lanes a, b, c give shift(shift(a) ^ b) ^ c. shift is linear too: four tables of 256
 * entries, one per byte of the value, filled once at load time (from the 32 bit-vectors, bit by bit, with no
 * instruction the CPU may lack). */
#define LANE 128
static uint32_t shift_table[4][256];

__attribute__((constructor)) static void fill_shift_table(void) {
    uint32_t basis[32];
    for (int bit = 0; bit < 32; bit++) {
        uint32_t value = (uint32_t)1 << bit;
        for (int step = 0; step < 8 * LANE; step++) value = (value >> 1) ^ ((value & 1) ? 0x82F63B78u : 0);
        basis[bit] = value;
    }
    for (int byte = 0; byte < 4; byte++) {
        for (int entry = 0; entry < 256; entry++) {
            uint32_t value = 0;
            for (int bit = 0; bit < 8; bit++) {
                if (entry & (1 << bit)) value ^= basis[8 * byte + bit];
            }
            shift_table[byte][entry] = value;
        }
    }
}

static inline uint32_t shift(uint32_t value) {
    return shift_table[0][value & 0xFF] ^ shift_table[1][(value >> 8) & 0xFF] ^
           shift_table[2][(value >> 16) & 0xFF] ^ shift_table[3][value >> 24];
}

__attribute__((target("sse4.2")))
uint32_t ledger_crc32c_update(uint32_t crc, const void *bytes, size_t length) {
    const unsigned char *p = (const unsigned char *)bytes;
    uint64_t value = (uint32_t)~crc;
    while (length >= 3 * LANE) {
        uint64_t a = value, b = 0, c = 0;
        for (size_t at = 0; at < LANE; at += 8) {
            uint64_t wordA, wordB, wordC;
            memcpy(&wordA, p + at, 8);
            memcpy(&wordB, p + LANE + at, 8);
            memcpy(&wordC, p + 2 * LANE + at, 8);
            a = _mm_crc32_u64(a, wordA);
            b = _mm_crc32_u64(b, wordB);
            c = _mm_crc32_u64(c, wordC);
        }
        value = shift(shift((uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)c;
        p += 3 * LANE;
        length -= 3 * LANE;
    }
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
