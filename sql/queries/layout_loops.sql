-- layout_loops: loops by share of the weight, with the fields and arrays they touch (LWPTool's Tables 6 and 8)
-- Parameters: :run (default: the latest run), :limit (default 20).
-- touches: group+offset for the fields of analysed structures, the group
-- alone for arrays.
WITH r AS (SELECT coalesce(:run, (SELECT max(id) FROM runs)) AS run)
SELECT l.function || ' ' || coalesce(l.file || ':' || l.line_min || '-' || l.line_max, '?')
           || CASE WHEN l.headers > 1 THEN ' (irreducible)' ELSE '' END AS loop,
       printf('%.1f%%', 100 * l.share)                               AS share,
       (SELECT group_concat(t, ' ') FROM (
            SELECT DISTINCT a.name || coalesce('+' || (s.base_offset % f.struct_size), '') AS t
            FROM layout_streams s JOIN alloc_sites a ON a.id = s.site
            JOIN layout_groups g ON g.run = s.run AND g.site = s.site AND g.l_d >= 0.01
            LEFT JOIN (SELECT DISTINCT run, site, struct_size FROM layout_fields) f
                   ON f.run = s.run AND f.site = s.site AND s.stride > s.max_size
            WHERE s.run = l.run AND s.loop = l.loop))                 AS touches
FROM layout_loops l, r
WHERE l.run = r.run AND l.share > 0
ORDER BY l.share DESC
LIMIT coalesce(:limit, 20);
