// CRC-32 (zlib polynomial) by carry-less multiplication folding, for x86-64 CPUs with PCLMULQDQ.
// Used by NordicDFU's CRC32 on long buffers; everything else there is Swift.
#ifndef CRC32_FOLDING_H
#define CRC32_FOLDING_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU can run crc32_folding_update (x86-64 with PCLMULQDQ and SSE4.1).
int crc32_folding_available(void);

/// Advances the CRC-32 register `state` (the inverted running value, as a table-driven loop keeps
/// it) over `length` bytes at `bytes`. `length` must be at least 64 and a multiple of 16.
/// Only call when crc32_folding_available() returned non-zero.
uint32_t crc32_folding_update(uint32_t state, const uint8_t *bytes, size_t length);

#endif
