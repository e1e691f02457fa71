#ifndef LEDGER_CLINUX_SHIM_H
#define LEDGER_CLINUX_SHIM_H
/* The Linux interfaces Swift's Glibc module leaves out, for LedgerSystem alone: epoll (<sys/epoll.h>), the thread's
 * id and the scheduler's per-thread attributes (gettid, sched_setattr: Swift cannot reach them through the variadic
 * syscall(), and glibc does not wrap sched_setattr). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

/* struct sched_attr of <linux/sched/types.h>, version 1 (48 bytes). */
struct ledger_sched_attr {
    uint32_t size;
    uint32_t policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime;
    uint64_t deadline;
    uint64_t period;
};

/* Asks for the calling thread's time slice under the fair scheduler: sched_attr.sched_runtime of a SCHED_OTHER
 * thread, which EEVDF (Linux 6.12 and later) takes as the request size, clamped to 100 us..100 ms. A shorter slice
 * gets a waking thread onto a core sooner, at the cost of more preemption. Keeps the thread's policy and niceness.
 * Earlier kernels accept the field and ignore it. Returns 0, or -1 with errno set (ENOSYS before 3.14, EPERM for a
 * policy other than SCHED_OTHER). */
static inline int ledger_set_thread_slice(uint64_t nanoseconds) {
    struct ledger_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    if (syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return -1;
    if (attr.policy != 0 /* SCHED_OTHER */) {
        errno = EPERM;
        return -1;
    }
    attr.size = sizeof attr;
    attr.flags = 0;
    attr.runtime = nanoseconds;
    return (int)syscall(SYS_sched_setattr, 0, &attr, 0);
}

/* The calling thread's id (what setpriority and /proc/PID/task name it by). */
static inline pid_t ledger_thread_id(void) { return (pid_t)syscall(SYS_gettid); }

/* The calling thread's slice in nanoseconds as the kernel reports it (0 before 6.12), or -1 with errno set. */
static inline int64_t ledger_thread_slice(void) {
    struct ledger_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    if (syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return -1;
    return (int64_t)attr.runtime;
}
#endif
