// The allocator's own count of the bytes it has handed out and not had back,
// for tests that judge what a transfer holds apart from how the allocator
// lays its arenas out (HeapMemory.swift).
#ifndef C_DEFERRED_QUEUE_HEAP_H
#define C_DEFERRED_QUEUE_HEAP_H

#include <stddef.h>

/// Bytes allocated with malloc and not freed, mapped allocations included;
/// 0 where the C library does not say.
size_t cdq_heap_bytes_in_use(void);

#endif
