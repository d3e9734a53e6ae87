#include "CDeferredQueueHeap.h"

#if defined(__APPLE__)
#include <malloc/malloc.h>

size_t cdq_heap_bytes_in_use(void) {
    malloc_statistics_t stats;
    malloc_zone_statistics(NULL, &stats);
    return stats.size_in_use;
}

#elif defined(__linux__)
// <malloc.h> brings in <features.h>, which defines __GLIBC__ on glibc.
#include <malloc.h>

size_t cdq_heap_bytes_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#else
    return 0;
#endif
}

#else

size_t cdq_heap_bytes_in_use(void) {
    return 0;
}

#endif
