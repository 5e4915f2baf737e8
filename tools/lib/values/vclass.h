/*
 * vclass.h: the two redundancies of a stored value that Zhang's type-based
 * value profiling finds (dissertation, sections 6.4 and 7.1), as tests on
 * one value of one access:
 *
 *   small    the value is close to zero: as a signed number of the
 *            access's width it fits in P bits of two's complement
 *            (P = 15: -16384 <= v <= 16383, "the 18 higher order bits
 *            are identical" of a 32-bit word);
 *   pointer  the value shares all but its low P bits with the address it
 *            is stored at (P = 15: the same 32 KB-aligned region, "a
 *            common 17 bit prefix" of a 32-bit word), and its low P bits
 *            are not all zero (a compressed 0 means nil, section 7.1);
 *   incompressible  neither.
 *
 * A word is the access itself: a 4-byte access is the paper's 32-bit word
 * (its address compared by its low 32 bits), an 8-byte one a 64-bit word,
 * for which the same P-bit payload is kept (docs/trace-values.md says why);
 * 1- and 2-byte accesses are words of their width, never pointers.
 *
 * vc_need() is the fewest low bits a value keeps once its redundant
 * prefix (sign extension, or the prefix it shares with its address) is
 * dropped: the value fits a fixed width L (Figures 6.4, 6.5) when
 * vc_need <= L.
 */
#ifndef MEMREC_VALUES_VCLASS_H
#define MEMREC_VALUES_VCLASS_H

#include <stdint.h>

/* The classes, in the order the tests are made. */
typedef enum vclass {
    VC_SMALL = 0,
    VC_POINTER = 1,
    VC_INCOMPRESSIBLE = 2,
    VC_NCLASSES
} vclass;

#define VC_PAPER_PAYLOAD 15u    /* the dissertation's compressed entity */

/* Bits of the word of an access of size bytes (8, 16, 32 or 64). */
static inline unsigned vc_word_bits(uint32_t size)
{
    return size >= 8 || size == 0 ? 64 : size >= 4 ? 32 : size >= 2 ? 16 : 8;
}

/* The value as a signed number of its word's width (the recorder hands
 * narrower values zero-extended). */
static inline int64_t vc_signed(uint64_t v, unsigned word_bits)
{
    unsigned shift = 64 - word_bits;
    return (int64_t)(v << shift) >> shift;   /* arithmetic: sign-extends */
}

/* Bits of two's complement that the value needs: 1 for 0 and -1, 15 for
 * -16384 and 16383, 16 for 16384. */
static inline unsigned vc_small_bits(uint64_t v, unsigned word_bits)
{
    return 64u - (unsigned)__builtin_clrsbll(vc_signed(v, word_bits));
}

/* Low bits in which the value differs from its address, both taken as
 * words: 0 for a pointer to itself, up to word_bits. A word narrower than
 * 32 bits holds no address: all its bits. */
static inline unsigned vc_pointer_bits(uint64_t v, uint64_t addr,
                                       unsigned word_bits)
{
    if (word_bits < 32)
        return word_bits;
    uint64_t mask = word_bits == 64 ? ~0ull : (1ull << word_bits) - 1;
    uint64_t diff = (v ^ addr) & mask;
    return diff ? 64u - (unsigned)__builtin_clzll(diff) : 0;
}

/* The fewest bits the value keeps without its redundant prefix. */
static inline unsigned vc_need(uint64_t v, uint64_t addr, unsigned word_bits)
{
    unsigned s = vc_small_bits(v, word_bits), p = vc_pointer_bits(v, addr, word_bits);
    return s < p ? s : p;
}

/* The class of value v stored at (or loaded from) addr by an access of
 * word_bits, with a payload of payload bits (1..63). */
static inline vclass vc_classify(uint64_t v, uint64_t addr, unsigned word_bits,
                                 unsigned payload)
{
    if (vc_small_bits(v, word_bits) <= payload)
        return VC_SMALL;
    /* the nil rule: a pointer whose kept bits are all 0 would read as nil */
    if (vc_pointer_bits(v, addr, word_bits) <= payload &&
        (v & ((1ull << payload) - 1)) != 0)
        return VC_POINTER;
    return VC_INCOMPRESSIBLE;
}

/* "small", "pointer", "incompressible". */
const char *vc_name(vclass c);

#endif /* MEMREC_VALUES_VCLASS_H */
