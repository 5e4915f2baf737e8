-- plot_twpp: data of trace-plot twpp: a run's TWPP compaction step by step (Table 3.2 and 3.3): the uncompressed WPP, after redundant traces are removed, after the DBB dictionaries (traces and dictionaries), the timestamped traces as written, and the control-flow part of the .twpp file (all but TWPP+).
-- Parameters: :run (default: the latest run with a TWPP); :group and :limit are ignored.
-- Columns: label, bytes, factor (against the uncompressed WPP).
WITH s AS (SELECT * FROM twpp_sizes
           WHERE run = coalesce(:run, (SELECT max(run) FROM twpp_sizes))
             AND coalesce(:group, :limit, 1) IS NOT NULL),
     w AS (SELECT bytes FROM s WHERE part = 'wpp')
SELECT CASE part WHEN 'wpp' THEN 'uncompressed WPP'
                 WHEN 'unique traces' THEN 'unique traces (step 2)'
                 WHEN 'compacted traces' THEN 'DBB traces + dictionaries (step 3)'
                 WHEN 'twpp traces' THEN 'timestamped traces (steps 4-5; no dictionaries)'
                 ELSE '.twpp control part (packed, with DCG and symbols)' END AS label,
       CASE part WHEN 'compacted traces'
                 THEN bytes + (SELECT bytes FROM s WHERE part = 'dictionaries')
                 ELSE bytes END AS bytes,
       printf('%.1fx', 1.0 * (SELECT bytes FROM w) /
              max(1, CASE part WHEN 'compacted traces'
                               THEN bytes + (SELECT bytes FROM s WHERE part = 'dictionaries')
                               ELSE bytes END)) AS factor
FROM s
WHERE part IN ('wpp', 'unique traces', 'compacted traces', 'twpp traces', 'control total')
ORDER BY step;
