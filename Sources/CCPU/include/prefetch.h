/* A hint that a cache line will be read soon: the CPU starts loading it and goes on, where a load would hold
 * the instructions after it until the line arrived. Does nothing visible; any address may be given. */
#ifndef LEDGER_PREFETCH_H
#define LEDGER_PREFETCH_H

static inline void ledger_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

#endif
