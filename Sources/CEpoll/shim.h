#ifndef LEDGER_CEPOLL_SHIM_H
#define LEDGER_CEPOLL_SHIM_H
/* Linux epoll: Swift's Glibc module does not include <sys/epoll.h>. Used only by LedgerSystem's Epoll. */
#include <sys/epoll.h>
#endif
