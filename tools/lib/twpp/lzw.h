/*
 * lzw.h: Welch's LZW over bytes, the DCG compressor the dissertation used
 * (section 3.1), kept to compare with zstd: codes of 9 to 16 bits packed
 * least significant bit first; 256 is the clear code, sent when the
 * 65536-entry table is full, after which the table starts again. The
 * expanded length is stored beside the stream, so there is no end code.
 */
#ifndef MEMREC_TWPP_LZW_H
#define MEMREC_TWPP_LZW_H

#include <stddef.h>
#include <stdint.h>

/* Compresses in[0..n) into *out (malloc'd), *outn bytes. 0, or -1 when
 * out of memory. */
int lzw_compress(const uint8_t *in, size_t n, uint8_t **out, size_t *outn);

/* Expands in[0..n) into out, exactly outn bytes. 0, or -1 when the stream
 * is corrupt, too short or too long. */
int lzw_expand(const uint8_t *in, size_t n, uint8_t *out, size_t outn);

#endif
