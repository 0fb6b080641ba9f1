// What status counts on every run, kept current by triggers on the index's memories and
// relations tables (index version 10) instead of counted from scratch: the memories by status and
// by type (a GROUP BY over every memory: 5-7 ms each at 50k) and the relations with a missing
// endpoint (a probe of the memories per relation: 20-26 ms at 50k). Status reads them in one
// query of a few rows; the dangling relations themselves are listed only when there are some.
//
// A relation is dangling when its `from` memory is not indexed, or its `to` memory is not and it
// is not provenance (consolidated_from, split_from name a memory that is gone on purpose). That
// depends on other rows, so a memory's insert or delete moves the count by the relations touching
// it: counted before the change (a BEFORE trigger) and taken off, counted again after and added.

/** Relation `r` (a row alias) is dangling, against the memories as they are now. */
function danglingSql(r: string): string {
  return `(NOT EXISTS (SELECT 1 FROM memories WHERE id = ${r}.from_id)
    OR (${r}.type NOT IN ('consolidated_from', 'split_from') AND NOT EXISTS (SELECT 1 FROM memories WHERE id = ${r}.to_id)))`;
}

/**
 * Add `delta` to one count; a status or type whose count falls to 0 is dropped (it is not listed).
 * A count only added to cannot fall to 0: no look for one (a rebuild inserts every memory).
 */
function bump(what: string, key: string, delta: string): string {
  const add = `INSERT INTO index_counts(what, k, n) VALUES (${what}, ${key}, ${delta})
    ON CONFLICT(what, k) DO UPDATE SET n = n + excluded.n;`;
  return delta === "1" ? add : `${add}
  DELETE FROM index_counts WHERE what = ${what} AND k = ${key} AND n = 0;`;
}

/** The dangling relations among those from or to memory `id` (an SQL expression). */
const touching = (id: string) => `(SELECT count(*) FROM relations r WHERE (r.from_id = ${id} OR r.to_id = ${id}) AND ${danglingSql("r")})`;

const DANGLING = "'dangling'";

/** Some relation is from or to memory `id`: most memories have none, and their triggers do nothing. */
const related = (id: string) => `EXISTS (SELECT 1 FROM relations WHERE from_id = ${id}) OR EXISTS (SELECT 1 FROM relations WHERE to_id = ${id})`;

/** A memory's insert or delete: its relations' dangling ones taken off before it and counted again after. */
function aroundChange(event: "insert" | "delete", row: "NEW" | "OLD"): string {
  const id = `${row}.id`;
  return `CREATE TRIGGER IF NOT EXISTS memories_dangling_before_${event} BEFORE ${event.toUpperCase()} ON memories WHEN ${related(id)} BEGIN
  ${bump(DANGLING, "''", `-${touching(id)}`)}
END;
CREATE TRIGGER IF NOT EXISTS memories_dangling_after_${event} AFTER ${event.toUpperCase()} ON memories WHEN ${related(id)} BEGIN
  ${bump(DANGLING, "''", touching(id))}
END;`;
}

/**
 * The table and its triggers. A function, not a constant: only an index's creation or upgrade
 * needs the text, and building it at module load cost every command that opens the index (a get,
 * a save, a hook) ~0.1 ms of CPU with stamp-sums.ts's (a compiled probe, issue 16).
 */
export const indexCountsSchema = () => `
CREATE TABLE IF NOT EXISTS index_counts (what TEXT NOT NULL, k TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (what, k)) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS memories_counts_insert AFTER INSERT ON memories BEGIN
  ${bump("'status'", "NEW.status", "1")}
  ${bump("'type'", "NEW.type", "1")}
END;
CREATE TRIGGER IF NOT EXISTS memories_counts_delete AFTER DELETE ON memories BEGIN
  ${bump("'status'", "OLD.status", "-1")}
  ${bump("'type'", "OLD.type", "-1")}
END;
CREATE TRIGGER IF NOT EXISTS memories_counts_status AFTER UPDATE OF status ON memories WHEN OLD.status IS NOT NEW.status BEGIN
  ${bump("'status'", "OLD.status", "-1")}
  ${bump("'status'", "NEW.status", "1")}
END;
CREATE TRIGGER IF NOT EXISTS memories_counts_type AFTER UPDATE OF type ON memories WHEN OLD.type IS NOT NEW.type BEGIN
  ${bump("'type'", "OLD.type", "-1")}
  ${bump("'type'", "NEW.type", "1")}
END;
${aroundChange("insert", "NEW")}
${aroundChange("delete", "OLD")}
CREATE TRIGGER IF NOT EXISTS memories_dangling_before_id BEFORE UPDATE OF id ON memories WHEN OLD.id IS NOT NEW.id BEGIN
  ${bump(DANGLING, "''", `-${touching("OLD.id")} - ${touching("NEW.id")}`)}
END;
CREATE TRIGGER IF NOT EXISTS memories_dangling_after_id AFTER UPDATE OF id ON memories WHEN OLD.id IS NOT NEW.id BEGIN
  ${bump(DANGLING, "''", `${touching("OLD.id")} + ${touching("NEW.id")}`)}
END;
CREATE TRIGGER IF NOT EXISTS relations_dangling_insert AFTER INSERT ON relations WHEN ${danglingSql("NEW")} BEGIN
  ${bump(DANGLING, "''", "1")}
END;
CREATE TRIGGER IF NOT EXISTS relations_dangling_delete AFTER DELETE ON relations WHEN ${danglingSql("OLD")} BEGIN
  ${bump(DANGLING, "''", "-1")}
END;
CREATE TRIGGER IF NOT EXISTS relations_dangling_update AFTER UPDATE OF from_id, to_id, type ON relations BEGIN
  ${bump(DANGLING, "''", `(CASE WHEN ${danglingSql("NEW")} THEN 1 ELSE 0 END) - (CASE WHEN ${danglingSql("OLD")} THEN 1 ELSE 0 END)`)}
END;`;

/** The dangling relations counted from scratch (an upgrade to version 10; what the tests check the triggers against). */
export const danglingFromScratch = () => `SELECT count(*) AS n FROM relations r WHERE ${danglingSql("r")}`;

/** The counts made again from the tables (an upgrade to version 10). */
export const indexCountsFromTables = () => `DELETE FROM index_counts;
INSERT INTO index_counts(what, k, n) SELECT 'status', status, count(*) FROM memories GROUP BY status;
INSERT INTO index_counts(what, k, n) SELECT 'type', type, count(*) FROM memories GROUP BY type;
INSERT INTO index_counts(what, k, n) SELECT 'dangling', '', n FROM (${danglingFromScratch()}) WHERE n > 0;`;
