/* widths.c: Figures 6.4 and 6.5 from the need histogram; see widths.h. */
#include "values/widths.h"

void values_width_at(const values_summary *s, unsigned width, values_width *w)
{
    *w = (values_width){ .width = width };
    for (unsigned wi = 0; wi < 4; wi++) {
        uint64_t word = 8u << wi;           /* 8, 16, 32, 64 bits */
        for (unsigned need = 0; need <= VALUES_MAX_WIDTH; need++) {
            uint64_t n = s->need[wi][need];
            if (!n)
                continue;
            w->valued += n;
            w->base_bits += n * word;
            int fits = width >= word || need <= width;
            w->fitting += fits ? n : 0;
            /* a fitting value costs L bits, but never more than its word */
            w->bits += n * (fits && width < word ? width : word);
        }
    }
}
