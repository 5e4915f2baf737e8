-- leap_strides.sql: the stride score (Wu et al., Figure 9: 88%): of the
-- instructions the exact profile finds strongly strided, how many LEAP
-- finds strongly strided with the same stride; and how many LEAP calls
-- strongly strided that are not.
--   trace-db FILE query leap_strides
-- Parameters: :run (default: the latest run), :file (a LIKE pattern the
-- instruction's source file must match, default: every one).
WITH r AS (SELECT coalesce(:run, (SELECT max(id) FROM runs)) AS run),
x AS (
    SELECT s.instruction, s.method, s.stride, s.strongly_strided
    FROM strides s JOIN instructions i ON i.id = s.instruction, r
    WHERE s.run = r.run AND coalesce(i.file, '') LIKE coalesce(:file, '%')),
e AS (SELECT * FROM x WHERE method = 'exact'),
l AS (SELECT * FROM x WHERE method = 'leap')
SELECT (SELECT count(*) FROM e WHERE strongly_strided)             AS exact_strong,  -- truth
       (SELECT count(*) FROM e JOIN l USING (instruction)
        WHERE e.strongly_strided AND l.strongly_strided
          AND e.stride = l.stride)                                  AS found,         -- by LEAP
       round(100.0 * (SELECT count(*) FROM e JOIN l USING (instruction)
                      WHERE e.strongly_strided AND l.strongly_strided
                        AND e.stride = l.stride)
             / max(1, (SELECT count(*) FROM e WHERE strongly_strided)), 1) AS percent,  -- score
       (SELECT count(*) FROM l LEFT JOIN e USING (instruction)
        WHERE l.strongly_strided AND NOT coalesce(e.strongly_strided, 0)) AS false_strong;  -- LEAP only
