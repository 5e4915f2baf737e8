/* fieldmap.c: see fieldmap.h. */
#include <stdlib.h>
#include "rds/fieldmap.h"

/* Fibonacci hashing: keys are (node << 32 | offset), so both halves must
 * reach the index bits. */
static size_t slot_index(const fieldmap *m, uint64_t key)
{
    uint64_t h = (key ^ (key >> 29)) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & (m->cap - 1);
}

void fieldmap_init(fieldmap *m)
{
    m->slots = NULL;
    m->cap = m->count = 0;
}

void fieldmap_free(fieldmap *m)
{
    free(m->slots);
    fieldmap_init(m);
}

uint32_t fieldmap_get(const fieldmap *m, uint64_t key)
{
    if (!m->cap)
        return FIELDMAP_NONE;
    for (size_t i = slot_index(m, key);; i = (i + 1) & (m->cap - 1)) {
        const fieldmap_slot *s = &m->slots[i];
        if (s->value == FIELDMAP_NONE || s->key == key)
            return s->value;
    }
}

/* Doubles the table (first size 64), re-inserting every key. */
static int grow(fieldmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    fieldmap_slot *old = m->slots, *s = malloc(cap * sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < cap; i++)
        s[i].value = FIELDMAP_NONE;
    size_t oldcap = m->cap;
    m->slots = s;
    m->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].value != FIELDMAP_NONE) {
            size_t j = slot_index(m, old[i].key);
            while (s[j].value != FIELDMAP_NONE)
                j = (j + 1) & (cap - 1);
            s[j] = old[i];
        }
    free(old);
    return 0;
}

int fieldmap_put(fieldmap *m, uint64_t key, uint32_t value)
{
    /* At most half full, so probes stay short. */
    if ((m->count + 1) * 2 > m->cap && grow(m))
        return -1;
    size_t i = slot_index(m, key);
    while (m->slots[i].value != FIELDMAP_NONE && m->slots[i].key != key)
        i = (i + 1) & (m->cap - 1);
    if (m->slots[i].value == FIELDMAP_NONE)
        m->count++;
    m->slots[i].key = key;
    m->slots[i].value = value;
    return 0;
}

int fieldmap_del(fieldmap *m, uint64_t key)
{
    if (!m->cap)
        return 0;
    size_t mask = m->cap - 1, i = slot_index(m, key);
    while (m->slots[i].key != key || m->slots[i].value == FIELDMAP_NONE) {
        if (m->slots[i].value == FIELDMAP_NONE)
            return 0;
        i = (i + 1) & mask;
    }
    /* Backward shift: move later members of the probe run into the hole
     * when their home slot does not lie cyclically in (hole, j]. */
    for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
        if (m->slots[j].value == FIELDMAP_NONE)
            break;
        size_t home = slot_index(m, m->slots[j].key);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    m->slots[i].value = FIELDMAP_NONE;
    m->count--;
    return 1;
}
