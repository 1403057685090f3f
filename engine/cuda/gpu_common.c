/* gpu_common.c: what the CUDA and the CPU-only builds share (gpu.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

int gpu_parse_devices(const char *s, int *dev, int *n, char *err, size_t errlen)
{
    *n = 0;
    const char *p = s;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[8];
        if (len == 0 || len >= sizeof item) {
            snprintf(err, errlen, "'%s' is not a list of device indices such as 0,1", s);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        char *e;
        long d = strtol(item, &e, 10);
        if (*e || item[0] < '0' || item[0] > '9' || d >= GPU_MAX_DEVICES) {
            snprintf(err, errlen, "'%s' is not a device index from 0 to %d", item,
                     GPU_MAX_DEVICES - 1);
            return -1;
        }
        for (int i = 0; i < *n; i++) {
            if (dev[i] == d) {
                snprintf(err, errlen, "device %ld is listed twice", d);
                return -1;
            }
        }
        dev[(*n)++] = (int)d;
        if (!end) break;
        p = end + 1;
        if (!*p) {
            snprintf(err, errlen, "'%s' ends with a comma", s);
            return -1;
        }
    }
    return 0;
}
