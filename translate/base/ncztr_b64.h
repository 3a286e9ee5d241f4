/* Base64 (ncztr_b64.c). */
#ifndef NCZTR_B64_H
#define NCZTR_B64_H

#include <stddef.h>

/* Standard Base64 with padding. encode: malloc'ed NUL-terminated text (NULL when out of
 * memory). decode: the decoded length, or -1 if s is not Base64 or longer than cap. */
char *ncztr_b64_encode(const void *data, size_t n);
long ncztr_b64_decode(const char *s, size_t n, void *out, size_t cap);
/* The same, telling a value too long for cap (*too_long = 1) from one that is no Base64. */
long ncztr_b64_decode_ex(const char *s, size_t n, void *out, size_t cap, int *too_long);

#endif
