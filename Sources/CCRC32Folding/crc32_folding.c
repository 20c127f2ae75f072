// CRC-32 by folding with carry-less multiplication (PCLMULQDQ), the method of Intel's white paper "Fast
// CRC Computation for Generic Polynomials Using PCLMULQDQ Instruction" (Gopal et al., 2009).
// The constants are powers of x modulo the bit-reflected CRC-32 polynomial (values as published
// with the paper and used by other implementations of it):
//   k1 = x^(4*128+32) mod P << 1, k2 = x^(4*128-32) mod P << 1   (fold 512 bits at once)
//   k3 = x^(128+32) mod P << 1,   k4 = x^(128-32) mod P << 1     (fold 128 bits)
//   k5 = x^64 mod P << 1                                         (fold 64 to 32 bits)
//   P' = P reflected (33 bits), mu = floor(x^64 / P) reflected   (Barrett reduction)
#include "crc32_folding.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

int crc32_folding_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

#define TARGET __attribute__((target("pclmul,sse4.1")))

// x.low * k.low XOR x.high * k.high XOR next: one 128-bit block folded onto the next.
TARGET static inline __m128i fold(__m128i x, __m128i k, __m128i next) {
    __m128i low = _mm_clmulepi64_si128(x, k, 0x00);
    __m128i high = _mm_clmulepi64_si128(x, k, 0x11);
    return _mm_xor_si128(_mm_xor_si128(low, high), next);
}

TARGET uint32_t crc32_folding_update(uint32_t state, const uint8_t *bytes, size_t length) {
    const __m128i k1k2 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
    const __m128i k3k4 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
    const __m128i k5 = _mm_set_epi64x(0, 0x163cd6124);
    const __m128i polyMu = _mm_set_epi64x(0x1f7011641, 0x1db710641);
    const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);

    // Four lanes of 128 bits, the register XORed into the first bytes.
    __m128i x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)bytes), _mm_cvtsi32_si128((int)state));
    __m128i x1 = _mm_loadu_si128((const __m128i *)(bytes + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(bytes + 32));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(bytes + 48));
    bytes += 64;
    length -= 64;
    while (length >= 64) {
        x0 = fold(x0, k1k2, _mm_loadu_si128((const __m128i *)bytes));
        x1 = fold(x1, k1k2, _mm_loadu_si128((const __m128i *)(bytes + 16)));
        x2 = fold(x2, k1k2, _mm_loadu_si128((const __m128i *)(bytes + 32)));
        x3 = fold(x3, k1k2, _mm_loadu_si128((const __m128i *)(bytes + 48)));
        bytes += 64;
        length -= 64;
    }
    // Four lanes into one, then the remaining 16-byte blocks.
    __m128i x = fold(x0, k3k4, x1);
    x = fold(x, k3k4, x2);
    x = fold(x, k3k4, x3);
    while (length >= 16) {
        x = fold(x, k3k4, _mm_loadu_si128((const __m128i *)bytes));
        bytes += 16;
        length -= 16;
    }
    // 128 bits to 64: the low half times k4, XOR the high half.
    x = _mm_xor_si128(_mm_clmulepi64_si128(x, k3k4, 0x10), _mm_srli_si128(x, 8));
    // 64 bits to 32: the low 32 bits times k5, XOR the rest.
    x = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x, mask32), k5, 0x00), _mm_srli_si128(x, 4));
    // Barrett reduction to the 32-bit remainder.
    __m128i t = _mm_clmulepi64_si128(_mm_and_si128(x, mask32), polyMu, 0x10);
    t = _mm_clmulepi64_si128(_mm_and_si128(t, mask32), polyMu, 0x00);
    return (uint32_t)_mm_extract_epi32(_mm_xor_si128(x, t), 1);
}

#else

int crc32_folding_available(void) { return 0; }

uint32_t crc32_folding_update(uint32_t state, const uint8_t *bytes, size_t length) {
    (void)bytes;
    (void)length;
    return state;
}

#endif
