/*
 * chunk.c: chunk framing (SPEC.md "Chunks"): the fixed frame header with its
 * own CRC-32, the file header, and the zstd frame that carries the payload
 * (zstd's content checksum verifies the payload itself).
 */
#include "trace_internal.h"

/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), table built once.
 * Only frame headers, the file header and the trailer use it: tiny inputs. */
static uint32_t crc_table[256];

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

uint32_t mr_crc32(const void *p, size_t n)
{
    static int ready;
    if (!ready) {   /* idempotent, so a race between threads is harmless */
        crc_init();
        ready = 1;
    }
    const uint8_t *b = p;
    uint32_t c = 0xffffffffu;
    while (n--)
        c = crc_table[(c ^ *b++) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

void mr_file_header_encode(uint8_t out[MR_FILE_HEADER_LEN])
{
    memcpy(out, MR_MAGIC, MR_MAGIC_LEN);
    mr_le16(out + 8, MR_FORMAT_VERSION);
    mr_le16(out + 10, MR_MINOR_VERSION);
    mr_le32(out + 12, 0);   /* flags: none defined in 1.0 */
    mr_le32(out + 16, mr_crc32(out, 16));
}

void mr_frame_encode(const mr_frame *f, uint8_t out[MR_FRAME_LEN])
{
    memcpy(out, MR_CHUNK_TAG, 4);
    out[4] = f->kind;
    out[5] = f->flags;
    mr_le16(out + 6, 0);
    mr_le32(out + 8, f->raw_size);
    mr_le32(out + 12, f->comp_size);
    mr_le64(out + 16, f->time);
    mr_le32(out + 24, f->tid);
    mr_le32(out + 28, f->nrecords);
    mr_le32(out + 32, f->seq);
    mr_le32(out + 36, f->zcrc);
    mr_le32(out + 40, mr_crc32(out, 40));
}

const char *mr_frame_decode(const uint8_t in[MR_FRAME_LEN], mr_frame *f)
{
    if (memcmp(in, MR_CHUNK_TAG, 4))
        return "bad chunk tag";
    if (mr_rd32(in + 40) != mr_crc32(in, 40))
        return "frame header checksum mismatch";
    f->kind = in[4];
    f->flags = in[5];
    f->raw_size = mr_rd32(in + 8);
    f->comp_size = mr_rd32(in + 12);
    f->time = mr_rd64(in + 16);
    f->tid = mr_rd32(in + 24);
    f->nrecords = mr_rd32(in + 28);
    f->seq = mr_rd32(in + 32);
    f->zcrc = mr_rd32(in + 36);
    if (f->raw_size > MR_MAX_CHUNK_RAW)
        return "raw size too large";
    if (f->comp_size > ZSTD_compressBound(f->raw_size) || f->comp_size == 0)
        return "compressed size out of range";
    if (f->nrecords > f->raw_size)
        return "record count out of range";
    return NULL;
}

uint32_t mr_zhdr_crc(const uint8_t *comp, size_t comp_size)
{
    return mr_crc32(comp, comp_size < MR_ZHDR_LEN ? comp_size : MR_ZHDR_LEN);
}
