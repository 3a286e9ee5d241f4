/* Base64 (Zarr v2 fill values, encoded HDF5 types and property lists). */
#include "ncztr_b64.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- Base64 ---------------------------------------------------------------------------
 * Hand-written because none of the project's libraries (HDF5, jansson, libzip, curl, zlib)
 * exposes a Base64 codec. Standard alphabet with '=' padding, as Zarr v2 specifies (Python's
 * base64.standard_b64encode). */
static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* out must hold 4 * ((n + 2) / 3) + 1 bytes. */
static void b64_encode(const unsigned char *in, size_t n, char *out)
{
    size_t i, o = 0;
    for (i = 0; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = b64chars[v >> 18 & 63];
        out[o++] = b64chars[v >> 12 & 63];
        out[o++] = b64chars[v >> 6 & 63];
        out[o++] = b64chars[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
        out[o++] = b64chars[v >> 18 & 63];
        out[o++] = b64chars[v >> 12 & 63];
        out[o++] = i + 1 < n ? b64chars[v >> 6 & 63] : '=';
        out[o++] = '=';
    }
    out[o] = '\0';
}

static int b64_val(char c)
{
    const char *p = c ? strchr(b64chars, c) : NULL;
    return p ? (int)(p - b64chars) : -1;
}

/* Strict decoding (padded, no whitespace). Returns the decoded length, or -1 if s is not
 * Base64 or decodes to more than cap bytes (*too_long set then). */
static long b64_decode(const char *s, size_t n, unsigned char *out, size_t cap, int *too_long)
{
    size_t i, o = 0, pad = 0;

    *too_long = 0;
    if (n == 0 || n % 4 != 0)
        return -1;
    if (s[n - 1] == '=')
        pad = s[n - 2] == '=' ? 2 : 1;
    for (i = 0; i < n; i += 4) {
        int v[4];
        size_t k, nout = 3;
        for (k = 0; k < 4; k++) {
            if (i + k >= n - pad && s[i + k] == '=') {
                v[k] = 0;
                continue;
            }
            if ((v[k] = b64_val(s[i + k])) < 0)
                return -1;
        }
        if (i + 4 == n)
            nout = 3 - pad;
        if (o + nout > cap) {
            *too_long = 1;
            return -1;
        }
        {
            uint32_t x = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
            unsigned char t[3] = {(unsigned char)(x >> 16), (unsigned char)(x >> 8), (unsigned char)x};
            memcpy(out + o, t, nout);
            o += nout;
        }
    }
    return (long)o;
}

char *ncztr_b64_encode(const void *data, size_t n)
{
    char *out = malloc(4 * ((n + 2) / 3) + 1);
    if (out)
        b64_encode(data, n, out);
    return out;
}

long ncztr_b64_decode(const char *s, size_t n, void *out, size_t cap)
{
    int too_long;
    return b64_decode(s, n, out, cap, &too_long);
}

long ncztr_b64_decode_ex(const char *s, size_t n, void *out, size_t cap, int *too_long)
{
    return b64_decode(s, n, out, cap, too_long);
}
