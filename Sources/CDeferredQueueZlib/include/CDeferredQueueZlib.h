// zlib for DeferredQueue's content decoder (ContentDecoder.swift): the
// system's zlib, with its initialisation macros as functions Swift can call.
#ifndef C_DEFERRED_QUEUE_ZLIB_H
#define C_DEFERRED_QUEUE_ZLIB_H

#include <zlib.h>

/// `inflateInit2(stream, windowBits)`, which zlib defines as a macro.
static inline int cdq_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
