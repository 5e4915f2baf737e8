-- whomp_sizes: WHOMP's grammar sizes per run: each OMSG dimension, the OMSG,
-- the RASG and their ratio (below 1: the object-relative grammars are
-- smaller; the paper reports 0.78 on average).
-- Parameters: :run (default: every run), :limit (default 50).
SELECT w.run                AS run,
       coalesce(r.command, r.trace) AS program,
       w.accesses           AS accesses,
       w.instruction_bytes  AS instruction,
       w.group_bytes        AS "group",
       w.object_bytes       AS object,
       w.offset_bytes       AS offset,
       w.omsg_bytes         AS omsg,
       w.rasg_bytes         AS rasg,
       printf('%.3f', w.ratio) AS ratio,
       w.vertical_bytes     AS vertical
FROM whomp_sizes w
JOIN runs r ON r.id = w.run
WHERE w.run = coalesce(:run, w.run)
ORDER BY w.run
LIMIT coalesce(:limit, 50);
