/*
 * sum.h - the checksum both libam test programs put in their payloads:
 * word at a time, since payloads reach 1 MiB on tcp.
 */
#ifndef TESTS_LIBAM_SUM_H
#define TESTS_LIBAM_SUM_H

#include <stdint.h>
#include <string.h>

static inline uint32_t test_sum32(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603u, w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 1099511628211u;
    }
    for (; i < n; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return (uint32_t)(h ^ (h >> 32));
}

#endif
