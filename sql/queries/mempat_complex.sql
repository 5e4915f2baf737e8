-- mempat_complex.sql: the memory instructions with the most complex MemPat
-- patterns (trace-mempat --db), the first candidates for a closer look.
--   sqlite3 -header -column profile.db < sql/queries/mempat_complex.sql
-- Parameters: :run (default: every run), :limit (default 30).
--
-- Order: instructions whose pattern overflowed the cap first (they have more
-- committed patterns than trace-mempat --max-patterns kept), then by the
-- number of members of the complex pattern, then by the accesses concerned.
-- A complex pattern "{A +o+ B -o- C}" is the only form with spaces, two per
-- member after the first, which is how members are counted here.
SELECT m.run                                  AS run,
       printf('0x%x', i.address)               AS address,
       coalesce(i.function || ':' || i.line, i.function,
                printf('0x%x', i.address))     AS location,
       i.kind                                 AS access,  -- load, store, modify
       m.kind                                 AS kind,    -- Fix ... Complex
       m.overflowed                           AS overflowed,
       CASE WHEN m.overflowed THEN NULL       -- not kept: more than the cap
            ELSE 1 + (length(m.pattern) - length(replace(m.pattern, ' ', ''))) / 2
       END                                    AS members,
       m.accesses                             AS accesses,
       substr(m.pattern, 1, 100)              AS pattern  -- first 100 characters
FROM mempat m
JOIN instructions i ON i.id = m.instruction
WHERE m.kind = 'Complex' AND (:run IS NULL OR m.run = :run)
ORDER BY m.run, m.overflowed DESC, members DESC, m.accesses DESC
LIMIT coalesce(:limit, 30);
