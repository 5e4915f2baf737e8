-- mempat_coverage.sql: the share of memory accesses covered by each kind of
-- MemPat pattern, per run (trace-mempat --db): how regular the program's
-- memory behaviour is. A high Complex share means irregular accesses.
--   sqlite3 -header -column profile.db < sql/queries/mempat_coverage.sql
-- Parameter: :run (default: every run).
--
-- kind is the top-level kind of an instruction's pattern: Fix, Seq, Str,
-- SeqStr, Rep (a pattern repeated from the same address, REPn) or Complex
-- (several committed patterns, or an overflowed summary). Each instruction
-- counts all its accesses under its one kind.
SELECT run,
       kind,
       count(*)                                AS instructions,
       sum(accesses)                           AS accesses,
       round(100.0 * sum(accesses) /
             sum(sum(accesses)) OVER (PARTITION BY run), 2) AS percent,
       sum(overflowed)                         AS overflowed   -- summarised instructions
FROM mempat
WHERE :run IS NULL OR run = :run
GROUP BY run, kind
ORDER BY run, accesses DESC;
