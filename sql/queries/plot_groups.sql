-- plot_groups: data of trace-plot groups: the groups with the most memory traffic, loads and stores
-- Parameters: :run (default: the latest run), :limit (default 10).
-- Columns: label (group name and kind), loads, stores, accesses, bytes.
-- Loads and stores are summed over the group's instructions (a modify
-- counts in both).
SELECT s.name || ' (' || s.kind || ')'               AS label,
       sum(CASE WHEN i.kind <> 'store' THEN ig.accesses ELSE 0 END) AS loads,
       sum(CASE WHEN i.kind <> 'load' THEN ig.accesses ELSE 0 END)  AS stores,
       s.accesses                                    AS accesses,
       s.bytes                                       AS bytes
FROM alloc_sites s
JOIN instr_groups ig ON ig.site = s.id
JOIN instructions i ON i.id = ig.instruction
WHERE s.run = coalesce(:run, (SELECT max(id) FROM runs))
GROUP BY s.id
ORDER BY s.accesses DESC
LIMIT coalesce(:limit, 10);
