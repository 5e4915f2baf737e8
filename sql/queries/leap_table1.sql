-- leap_table1.sql: LEAP's profile size and sample quality per run (Wu et
-- al., Table 1: 3539x smaller than the trace on average, 46.5% of accesses
-- and 40.5% of instructions captured).
--   trace-db FILE query leap_table1
-- Parameter: :run (default: every run).
SELECT s.run,
       r.command,
       s.accesses,
       round(s.compression, 1)                                 AS compression,  -- 16 B/access over profile bytes
       round(100.0 * s.captured / max(1, s.accesses), 1)       AS accesses_captured_pct,
       round(100.0 * s.insns_captured / max(1, s.instructions), 1) AS instructions_captured_pct,
       s.profile_bytes,
       s.lmads,
       s.overflowed
FROM leap_summary s JOIN runs r ON r.id = s.run
WHERE :run IS NULL OR s.run = :run
ORDER BY s.run;
