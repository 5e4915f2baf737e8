-- plot_twpp_plus: data of trace-plot twpp_plus: a run's TWPP+ compaction step by step (Tables 4.1 and 4.6): the uncompressed trace with addresses, every dependence edge as 6 integers, the edges kept after dropping those control flow recovers, their Sequitur grammars per load point, TWPP+ whole (with dictionary and load index), and the whole .twpp file (control part too).
-- Parameters: :run (default: the latest run with a TWPP); :group and :limit are ignored.
-- Columns: label, bytes, factor (against the uncompressed trace with addresses).
WITH s AS (SELECT * FROM twpp_sizes
           WHERE run = coalesce(:run, (SELECT max(run) FROM twpp_sizes))
             AND coalesce(:group, :limit, 1) IS NOT NULL),
     w AS (SELECT bytes FROM s WHERE part = 'wpp with addresses')
SELECT CASE part WHEN 'wpp with addresses' THEN 'uncompressed (blocks + addresses)'
                 WHEN 'edges' THEN 'all edges (6 x 4 bytes)'
                 WHEN 'edges kept' THEN 'edges kept (recoverable dropped)'
                 WHEN 'dependence grammars' THEN 'Sequitur per load point and column'
                 WHEN 'twpp+' THEN 'TWPP+ (with dictionary, index)'
                 ELSE '.twpp file (TWPP + TWPP+)' END AS label,
       bytes,
       printf('%.1fx', 1.0 * (SELECT bytes FROM w) / max(1, bytes)) AS factor
FROM s
WHERE part IN ('wpp with addresses', 'edges', 'edges kept', 'dependence grammars', 'twpp+', 'total')
ORDER BY step;
