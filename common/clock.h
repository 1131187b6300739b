/* The monotonic clock in milliseconds, for deadlines and pauses. */
#ifndef HILAB_CLOCK_H
#define HILAB_CLOCK_H

#include <stdint.h>

/* Milliseconds on CLOCK_MONOTONIC. */
int64_t clock_now_ms(void);
/* Sleeps ms milliseconds (nothing if ms <= 0), resuming after signals. */
void clock_sleep_ms(int64_t ms);

#endif
