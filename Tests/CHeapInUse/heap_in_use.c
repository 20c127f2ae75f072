#include "heap_in_use.h"

#include <malloc.h>

size_t dfu_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
