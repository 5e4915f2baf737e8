-- leap_compression.sql: LEAP's profile size against the raw trace (16 bytes
-- per access: instruction and address), for the streams of the
-- instructions of some source files and for the whole trace side by side
-- (Wu et al., Table 1: 3539x on average, the programs probed without their
-- libraries). A short program's whole profile is mostly the dynamic
-- linker's and libc's startup, some 200 KB (docs/trace-leap.md).
--   trace-db FILE query leap_compression --param file=%stencil.c
-- Parameters: :run (default: the latest run), :file (a LIKE pattern the
-- instruction's source file must match, default: every one).
WITH r AS (SELECT coalesce(:run, (SELECT max(id) FROM runs)) AS run),
scoped AS (
    SELECT 'files' AS scope, s.accesses, s.captured, s.profile_bytes
    FROM leap_streams s, r JOIN instructions i ON i.id = s.instruction
    WHERE s.run = r.run AND coalesce(i.file, '') LIKE coalesce(:file, '%')
    UNION ALL
    SELECT 'trace', s.accesses, s.captured, s.profile_bytes
    FROM leap_streams s, r WHERE s.run = r.run)
SELECT scope,                                              -- 'files' (:file) or 'trace' (all)
       sum(accesses)                               AS accesses,       -- accesses of the streams
       round(100.0 * sum(captured) / max(1, sum(accesses)), 1) AS captured_pct,  -- held by LMADs
       sum(profile_bytes)                          AS profile_bytes,  -- their part of the profile
       16 * sum(accesses)                          AS trace_bytes,    -- 16 bytes per access
       round(16.0 * sum(accesses) / max(1, sum(profile_bytes)), 1) AS compression  -- trace over profile
FROM scoped GROUP BY scope ORDER BY scope;
