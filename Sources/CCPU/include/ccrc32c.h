/* CRC-32C with the CPU's crc32 instruction (SSE 4.2 on x86-64, the CRC extension on arm64); on x86-64,
 * buffers of 384 bytes or more run as three independent chains of the instruction, joined by a table.
 * LedgerLog's CRC32C calls this when ledger_crc32c_hardware() says the CPU has it, and its own
 * slicing-by-16 Swift code otherwise; both give identical results (tested). */
#ifndef LEDGER_CCRC32C_H
#define LEDGER_CCRC32C_H
#include <stddef.h>
#include <stdint.h>

/* 1 when ledger_crc32c_update can use the CPU's crc32 instruction, else 0. */
int ledger_crc32c_hardware(void);

/* Continues a CRC-32C (start with 0) over `length` bytes; same convention as CRC32C.update in Swift. */
uint32_t ledger_crc32c_update(uint32_t crc, const void *bytes, size_t length);

#endif
