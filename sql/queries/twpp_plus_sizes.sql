-- twpp_plus_sizes: a run's TWPP+ against the uncompressed trace and Sequitur (the dissertation's Table 4.6): the uncompressed control (4 bytes per block execution) and data (8 bytes per access address) traces, Sequitur's grammars of both when trace-wpp and trace-whomp ran on the same trace (the WPP's thread grammars and WHOMP's raw address grammar, stream 'rasg'), and TWPP+'s memory part (dictionary, load index, dependence grammars) plus its control part; factors against the uncompressed total.
-- Parameters: :run (default: the latest run with a TWPP).
WITH r AS (SELECT coalesce(:run, (SELECT max(run) FROM twpp_sizes)) AS run),
     s AS (SELECT t.part, t.bytes FROM twpp_sizes t, r WHERE t.run = r.run),
     v AS (SELECT (SELECT bytes FROM s WHERE part = 'wpp') AS control,
                  (SELECT bytes FROM s WHERE part = 'wpp with addresses') AS combined,
                  (SELECT bytes FROM s WHERE part = 'twpp+') AS memory,
                  (SELECT bytes FROM s WHERE part = 'control total') AS twpp,
                  (SELECT sum(g.bytes) FROM grammars g, r WHERE g.run = r.run AND g.analysis = 'wpp') AS seq_control,
                  (SELECT sum(g.bytes) FROM grammars g, r WHERE g.run = r.run AND g.analysis = 'whomp'
                                                                AND g.stream = 'rasg') AS seq_data)
SELECT 'uncompressed' AS form,
       control AS control_bytes, combined - control AS data_bytes, combined AS total_bytes,
       '1.00' AS factor
FROM v
UNION ALL
SELECT 'sequitur (trace-wpp + trace-whomp)', seq_control, seq_data, seq_control + seq_data,
       printf('%.2f', 1.0 * combined / (seq_control + seq_data))
FROM v WHERE seq_control IS NOT NULL AND seq_data IS NOT NULL
UNION ALL
SELECT 'twpp+ (control + memory)', twpp, memory, twpp + memory,
       printf('%.2f', 1.0 * combined / max(1, twpp + memory))
FROM v WHERE memory IS NOT NULL;
