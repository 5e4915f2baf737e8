-- twpp_sizes: a run's TWPP part by part (the dissertation's Tables 3.2, 3.3 and 3.5): bytes, the factor of each step against the one before, the compaction against the uncompressed WPP, and the Sequitur WPP of trace-wpp when the run has it; then TWPP+'s parts (Table 4.6) with their compaction against the uncompressed trace with addresses (trace_over_part).
-- Parameters: :run (default: the latest run with a TWPP).
WITH r AS (SELECT coalesce(:run, (SELECT max(run) FROM twpp_sizes)) AS run),
     s AS (SELECT t.* FROM twpp_sizes t, r WHERE t.run = r.run),
     wpp AS (SELECT bytes FROM s WHERE part = 'wpp'),
     wa AS (SELECT step, bytes FROM s WHERE part = 'wpp with addresses')
SELECT s.step  AS step,
       s.part  AS part,
       s.bytes AS bytes,
       CASE WHEN s.part IN ('unique traces', 'compacted traces', 'twpp traces')
            THEN printf('%.2f', 1.0 * (SELECT p.bytes FROM s p WHERE p.step < s.step
                                       AND p.part IN ('wpp', 'unique traces', 'compacted traces')
                                       ORDER BY p.step DESC LIMIT 1) / max(1, s.bytes)) END AS step_factor,
       printf('%.2f', 1.0 * (SELECT bytes FROM wpp) / max(1, s.bytes)) AS wpp_over_part,
       CASE WHEN s.step >= (SELECT step FROM wa)
            THEN printf('%.2f', 1.0 * (SELECT bytes FROM wa) / max(1, s.bytes)) END AS trace_over_part
FROM s
UNION ALL
SELECT 100, 'sequitur wpp (trace-wpp)', sum(g.bytes), NULL,
       printf('%.2f', 1.0 * (SELECT bytes FROM wpp) / max(1, sum(g.bytes))), NULL
FROM grammars g, r
WHERE g.run = r.run AND g.analysis = 'wpp'
HAVING count(*) > 0
ORDER BY step;
