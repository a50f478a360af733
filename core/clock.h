/* core/clock.h: the monotonic clock that time budgets, rates and deadlines are measured on. */
#ifndef CS_CORE_CLOCK_H
#define CS_CORE_CLOCK_H

#include <stdint.h>

/* Seconds on the monotonic clock (any origin: only differences mean something). */
double cs_now_s(void);
/* The same clock in nanoseconds, for deadlines counted in whole milliseconds. */
int64_t cs_now_ns(void);

#endif
