-- grammars: the Sequitur grammars stored by trace-wpp and trace-whomp: per
-- stream its length, rules, right-hand-side symbols and stored bytes, and
-- bytes per symbol of the stream.
-- Parameters: :run (default: the latest run with grammars), :limit (default 50).
SELECT g.analysis AS analysis,
       g.stream   AS stream,
       g.length   AS length,
       g.rules    AS rules,
       g.symbols  AS symbols,
       g.bytes    AS bytes,
       printf('%.3f', 1.0 * g.bytes / max(1, g.length)) AS bytes_per_symbol
FROM grammars g
WHERE g.run = coalesce(:run, (SELECT max(run) FROM grammars))
ORDER BY g.analysis, g.stream LIKE 'vertical %', g.stream
LIMIT coalesce(:limit, 50);
