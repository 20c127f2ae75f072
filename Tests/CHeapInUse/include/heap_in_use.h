#ifndef DFU_HEAP_IN_USE_H
#define DFU_HEAP_IN_USE_H

#include <stddef.h>

/// Bytes the process's malloc heap holds for live allocations, all arenas and mmapped blocks
/// (glibc's mallinfo2: uordblks + hblkhd). Unlike the resident set, it does not grow when a new
/// thread gets an arena or freed memory is kept for reuse: what it gains over a stretch of work
/// is what that work left allocated.
size_t dfu_heap_in_use(void);

#endif
