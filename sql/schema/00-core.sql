-- 00-core.sql: the memrec profile database. One file holds many runs (one run
-- per traced process) and every analysis of the project writes into it.
-- The schema is sql/schema/*.sql, run in name order: this file holds what
-- every analysis shares (runs, analyses, instructions, threads); each
-- analysis owns one file of its own tables (10-objects.sql, 20-mempat.sql,
-- ...), named so that it runs after the files whose tables it refers to.
--
-- Conventions:
--   * Every table but runs has a `run` column; deleting a run deletes every
--     row whose run column names it (trace-db FILE delete RUN).
--   * Times are the trace's global clock: guest instructions executed before
--     the event, all threads together.
--   * Addresses are stored as signed 64-bit integers (SQLite has no unsigned
--     type); printf('0x%x', address) shows them as the program saw them.
--   * Every statement is idempotent (IF NOT EXISTS), so running these files
--     on an older database adds what is missing: that is the upgrade. A
--     column added to an existing table cannot be said that way in SQL: the
--     upgrade in tools/lib/db/profiledb.c (added_columns) adds it to older
--     files with the same declaration as here.
--   * The schema version, of all the files together, lives in PRAGMA
--     user_version (PDB_SCHEMA_VERSION in tools/lib/db/profiledb.h), set at
--     the end of this file; commands refuse a database that is newer.
--     Version 2 added runs.complete and split the file by analysis; version 3
--     the tables of leap_lmad_levels, TWPP+, trace-redundancy, trace-dataflow,
--     trace-slice and trace-values; version 4 threads.os_tid (and
--     threads.instructions, which a version 3 file may lack); version 5
--     the table leap_streams; version 6 the view redundancy_classes.
--
-- Usable directly from the shell: cat sql/schema/*.sql | sqlite3 profile.db

-- One traced process: a trace file identified by its path and the process
-- identity recorded in it. Re-analysing the same trace reuses its run.
CREATE TABLE IF NOT EXISTS runs (
    id           INTEGER PRIMARY KEY,  -- run number, used by every other table
    trace        TEXT NOT NULL,        -- absolute path of the trace file when analysed
    command      TEXT,                 -- the traced program's command line (argv joined by spaces)
    pid          INTEGER NOT NULL,     -- process id of the traced program
    started      INTEGER NOT NULL,     -- process start, microseconds since the Unix epoch
    instructions INTEGER,              -- guest instructions executed (trace totals)
    loads        INTEGER,              -- memory reads executed, a modify counting as one read
    stores       INTEGER,              -- memory writes executed, a modify counting as one write
    complete     INTEGER CHECK (complete IN (0, 1)),
                                       -- 1 when the profile covers the whole trace, 0 when the
                                       -- trace was cut short (no end record: the program was
                                       -- killed) and the profile covers its start only; as
                                       -- said by the last analysis written; NULL for runs
                                       -- written before schema version 2 (not known)
    UNIQUE (trace, pid, started)
);

-- Which analysis wrote into which run, so a re-run replaces only its own rows.
CREATE TABLE IF NOT EXISTS analyses (
    run      INTEGER NOT NULL REFERENCES runs(id),  -- the run analysed
    name     TEXT NOT NULL,     -- analysis name: "objects", "mempat", ...
    options  TEXT,              -- the command line of the analysis
    finished INTEGER NOT NULL,  -- when it committed, seconds since the Unix epoch
    PRIMARY KEY (run, name)
);

-- Static memory instructions: one row per (address, access kind, size) of a
-- run, shared by all analyses (get it through pdb_instruction()).
CREATE TABLE IF NOT EXISTS instructions (
    run      INTEGER NOT NULL REFERENCES runs(id),  -- the run
    id       INTEGER PRIMARY KEY,  -- instruction id, unique in the whole database
    address  INTEGER NOT NULL,     -- address of the machine instruction
    function TEXT,                 -- function holding it, NULL when unknown
    file     TEXT,                 -- source file, NULL when unknown
    line     INTEGER,              -- source line, NULL when unknown
    kind     TEXT NOT NULL,        -- 'load', 'store' or 'modify'
    size     INTEGER NOT NULL,     -- bytes accessed
    UNIQUE (run, address, kind, size)
);

-- Memory traffic of each thread (written by trace-objects today).
CREATE TABLE IF NOT EXISTS threads (
    run          INTEGER NOT NULL REFERENCES runs(id),  -- the run
    tid          INTEGER NOT NULL,  -- thread id as recorded (1 = main thread)
    parent       INTEGER,           -- creating thread; NULL for the main thread or if unknown
    loads        INTEGER NOT NULL,  -- reads executed by the thread
    stores       INTEGER NOT NULL,  -- writes executed by the thread
    bytes        INTEGER NOT NULL,  -- bytes read or written
    heap         INTEGER NOT NULL,  -- accesses to heap objects
    static       INTEGER NOT NULL,  -- accesses to static objects
    stack        INTEGER NOT NULL,  -- accesses classified as stack
    unknown      INTEGER NOT NULL,  -- accesses to nothing known
    allocs       INTEGER NOT NULL,  -- heap blocks (and mappings) it allocated
    first_access INTEGER,           -- time of its first access
    last_access  INTEGER,           -- time of its last access
    instructions INTEGER,           -- guest instructions it executed (NULL in rows written
                                    -- before the column existed; added by the upgrade)
    os_tid       INTEGER,           -- the operating system's thread id (gettid(); the main
                                    -- thread's is the pid), the first one if a later thread
                                    -- reused tid; NULL if the trace does not record it
                                    -- (recorded before memrec did) or rows before version 4
    PRIMARY KEY (run, tid)
);

-- The version of the whole schema (every file of sql/schema/).
PRAGMA user_version = 6;
