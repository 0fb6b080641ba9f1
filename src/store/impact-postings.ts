import type { DatabaseSync, SQLInputValue } from "node:sqlite";

// Impact-ordered postings (issue 16): recall's candidates found without FTS5 scoring every match.
// FTS5's bm25 weighs each term by how many memories hold it, a pass over every match of every
// term: a recall's cost grew with the store (the paraphrase prompt's hook at 50k: ~81 ms against
// ~46 at 1k). Here each term's postings are kept ordered by their BM25 weight (FTS5's formula:
// k1 1.2, b 0.75, the columns weighed 1 / 0.8 / 2 / 2), so a query reads each term's K best and
// sums idf x weight per memory: its cost is bounded by the prompt, not by the store.
//
// The postings are derived from the full-text index (its own terms, read through fts5vocab) and
// never written on a save: every write of a memory's searchable text (memory_docs, by trigger)
// only notes its rid as pending. A query scores the pending memories exactly from their text
// (few) and the settled ones from their postings, never from a pending rid's postings (an edited
// or deleted memory's are stale). Commands that write a lot anyway (a bulk refresh, sync, gc,
// reindex) merge the pending memories in (settle); past PENDING_SCORED_MOST the query is left to
// FTS5, as before this existed.

/** Each term's best postings read per query (ftsbound30 measured K=100: labelled quality as good or better at 10k and 50k). */
export const POSTINGS_PER_TERM = 100;
/** More pending memories than this: queries go to FTS5 (scoring them exactly grows with their number). */
export const PENDING_SCORED_MOST = 128;
/** A command that writes a lot merges the pending memories when there are at least this many. */
export const MERGE_FROM = 32;
/** Stores with fewer memories keep FTS5's exhaustive ranking (cheap there); MEMSYNC_BOUNDED_FROM overrides (tests, benchmarks). */
const BOUNDED_FROM_DEFAULT = 2000;
/** More terms than this in one query (a prefix of many words): left to FTS5 (SQLite's compound SELECT holds 500). */
const TERMS_MOST = 400;

/** The column weights recall's bm25() uses (content, gist, tags, entities), as SQL over fts5vocab's col. */
const COLUMN_WEIGHT = "CASE col WHEN 'content' THEN 1.0 WHEN 'gist' THEN 0.8 ELSE 2.0 END";
const K1 = 1.2;
const B = 0.75;

/** The memory_docs text as the full-text row holds it (index-db.ts FTS_FROM_DOCS). */
const FTS_COLUMNS_OF_DOC = `json_extract(d.json, '$.content'), coalesce(json_extract(d.json, '$.gist'), ''),
  coalesce((SELECT group_concat(value, ' ') FROM json_each(d.json, '$.meta.tags')), ''),
  coalesce((SELECT group_concat(value, ' ') FROM json_each(d.json, '$.entities')), '')`;

const pendingRid = (row: "new" | "old") => `INSERT INTO impact_pending(rid) SELECT ${row}.rid WHERE NOT EXISTS (SELECT 1 FROM impact_pending WHERE rid = ${row}.rid);`;

export const IMPACT_SCHEMA = `
CREATE TABLE IF NOT EXISTS impact_hits (term TEXT NOT NULL, w REAL NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (term, w, rid)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS impact_hits_rid ON impact_hits(rid);
CREATE TABLE IF NOT EXISTS impact_terms (term TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS impact_docs (rid INTEGER PRIMARY KEY, len INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS impact_pending (rid INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS impact_state (k TEXT PRIMARY KEY, v REAL NOT NULL) WITHOUT ROWID;
-- (not INSERT OR IGNORE: an outer statement's conflict policy, an upsert's, overrides a trigger's)
CREATE TRIGGER IF NOT EXISTS impact_pending_insert AFTER INSERT ON memory_docs BEGIN ${pendingRid("new")} END;
CREATE TRIGGER IF NOT EXISTS impact_pending_text AFTER UPDATE OF terms ON memory_docs BEGIN ${pendingRid("new")} END;
CREATE TRIGGER IF NOT EXISTS impact_pending_delete AFTER DELETE ON memory_docs BEGIN ${pendingRid("old")} END;
`;

export const IMPACT_DROP = `DROP TABLE IF EXISTS impact_hits; DROP TABLE IF EXISTS impact_terms; DROP TABLE IF EXISTS impact_docs;
DROP TABLE IF EXISTS impact_pending; DROP TABLE IF EXISTS impact_state;`;

/** Forget the postings (the index cleared): the next settle builds them again. */
export const IMPACT_CLEAR = "DELETE FROM impact_hits; DELETE FROM impact_terms; DELETE FROM impact_docs; DELETE FROM impact_pending; DELETE FROM impact_state;";

export function boundedFrom(): number {
  const v = Number(process.env.MEMSYNC_BOUNDED_FROM);
  return process.env.MEMSYNC_BOUNDED_FROM !== undefined && Number.isFinite(v) ? v : BOUNDED_FROM_DEFAULT;
}

interface State {
  built: boolean;
  docs: number;
  tokens: number;
}

function stateOf(db: DatabaseSync): State {
  const rows = db.prepare("SELECT k, v FROM impact_state").all() as { k: string; v: number }[];
  const m = new Map(rows.map((r) => [r.k, r.v]));
  return { built: m.get("built") === 1, docs: m.get("docs") ?? 0, tokens: m.get("tokens") ?? 0 };
}

function saveState(db: DatabaseSync, s: State): void {
  db.prepare("INSERT OR REPLACE INTO impact_state(k, v) VALUES ('built', ?), ('docs', ?), ('tokens', ?)").run(s.built ? 1 : 0, s.docs, s.tokens);
}

export function pendingCount(db: DatabaseSync, upTo: number): number {
  return (db.prepare("SELECT count(*) AS n FROM (SELECT 1 FROM impact_pending LIMIT ?)").get(upTo) as { n: number }).n;
}

/** Whether queries may take their candidates from the postings (built, and few enough pending). */
export function boundedReady(db: DatabaseSync, memories: number): boolean {
  if (memories < boundedFrom()) return false;
  return stateOf(db).built && pendingCount(db, PENDING_SCORED_MOST + 1) <= PENDING_SCORED_MOST;
}

/** FTS5's per-document token counts (its docsize rows: one varint per column), summed. */
function docLength(sz: Uint8Array): number {
  let total = 0;
  for (let i = 0; i < sz.length; ) {
    let v = 0;
    for (let k = 0; i < sz.length; k++) {
      const b = sz[i++]!;
      if (k === 8) {
        v = v * 256 + b;
        break;
      }
      v = v * 128 + (b & 0x7f);
      if ((b & 0x80) === 0) break;
    }
    total += v;
  }
  return total;
}

/** BM25's term factor of one memory (FTS5's, without the idf). */
function weightSql(avgdl: number): string {
  return `(t.x * ${K1 + 1}) / (t.x + ${K1} * (${1 - B} + ${B} * d.len / ${avgdl}))`;
}

/**
 * Write the postings of the memories whose per-term weighed counts are in temp.impact_tf and
 * whose lengths are in impact_docs, and add their terms' counts.
 */
function addPostings(db: DatabaseSync, avgdl: number): void {
  db.exec(`INSERT INTO impact_hits(term, w, rid) SELECT t.term, ${weightSql(avgdl)}, t.rid FROM temp.impact_tf t JOIN impact_docs d ON d.rid = t.rid ORDER BY t.term`);
  db.exec(
    "INSERT INTO impact_terms(term, n) SELECT term, count(*) FROM temp.impact_tf WHERE true GROUP BY term ON CONFLICT(term) DO UPDATE SET n = n + excluded.n",
  );
}

/** temp.impact_tf from an fts5vocab instance table: each (term, memory) with its column-weighed count. */
function weighedCounts(db: DatabaseSync, vocab: string): void {
  db.exec("DROP TABLE IF EXISTS temp.impact_tf");
  db.exec(`CREATE TEMP TABLE impact_tf AS SELECT term, doc AS rid, sum(${COLUMN_WEIGHT}) AS x FROM ${vocab} GROUP BY term, doc`);
}

/** The lengths of these memories (every indexed one, or those listed in a table of rids) from FTS5's docsize rows. */
function lengthsOf(db: DatabaseSync, rids: "all" | "impact_pending" | "temp.impact_batch"): { rid: number; len: number }[] {
  const where = rids === "all" ? "" : `WHERE d.rid IN (SELECT rid FROM ${rids})`;
  const rows = db.prepare(`SELECT d.rid, s.sz FROM memory_docs d JOIN memory_fts_docsize s ON s.id = d.rid ${where}`).all() as { rid: number; sz: Uint8Array }[];
  return rows.map((r) => ({ rid: r.rid, len: docLength(r.sz) }));
}

function putLengths(db: DatabaseSync, lens: readonly { rid: number; len: number }[]): void {
  const put = db.prepare("INSERT OR REPLACE INTO impact_docs(rid, len) VALUES (?, ?)");
  for (const l of lens) put.run(l.rid, l.len);
}

/**
 * Runs one step of a settle in its own short write transaction (IndexDb.transaction; Store's
 * also takes the store's write lock for it and lets a waiting writer in between steps): a build
 * or a merge never holds the index's write lock for long, and each step's commit is progress a
 * waiting writer sees (store/lock-terms.ts writersProgress). Throws (busy) to abandon the settle.
 */
export type StepRunner = <T>(step: () => T) => T;

/**
 * Postings written per step of a build: ~0.5 s of CPU each at 50k, far under a waiter's busy
 * timeout (15 s). Each commit writes again the rid index's pages the step touched (scattered:
 * the postings land in term order), so smaller steps cost more: the first build at 50k took 21.0 s
 * of CPU in steps of 40,000 and 14.1-15.4 in steps of 120,000, against 11.6 in one transaction;
 * a writer waiting meanwhile waited at most 0.53 and 0.71 s.
 */
const STEP_ROWS_DEFAULT = 120_000;
/** Pending memories merged per step (a merge of 128 cost 166 ms of CPU at 50k). */
const MERGE_BATCH = 64;
/** Another process's build that said nothing for this long (s) is taken to have died: built again. */
const BUILD_SILENT_S = 60;

/** MEMSYNC_POSTINGS_STEP_ROWS overrides the rows a step handles, and caps a merge's batch (tests: many small steps). */
function stepRows(): number {
  const v = Number(process.env.MEMSYNC_POSTINGS_STEP_ROWS);
  return Number.isFinite(v) && v >= 1 ? Math.floor(v) : STEP_ROWS_DEFAULT;
}

/** MEMSYNC_SLOW_POSTINGS_MS: each step of a build or merge takes this much longer, holding its transaction (tests of waiting writers: a large store's slow step). */
function slowStep(): void {
  const ms = Number(process.env.MEMSYNC_SLOW_POSTINGS_MS);
  if (Number.isFinite(ms) && ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** A build was abandoned: another settle took it over (its token replaced this one's). */
class BuildTakenOver extends Error {}

function buildToken(db: DatabaseSync): number | undefined {
  return (db.prepare("SELECT v FROM impact_state WHERE k = 'build'").get() as { v: number } | undefined)?.v;
}

/** Inside a build's step: still this build's (else abandoned), and its sign of life renewed. */
function stillOurs(db: DatabaseSync, token: number): void {
  if (buildToken(db) !== token) throw new BuildTakenOver("the postings' build was taken over by another settle");
  db.prepare("INSERT OR REPLACE INTO impact_state(k, v) VALUES ('build_at', ?)").run(Date.now() / 1000);
  slowStep();
}

/**
 * Term ranges [from, to) of about `rows` postings each, covering every term (the last is open):
 * from fts5vocab's per-term counts, read outside any write transaction.
 */
function termRanges(db: DatabaseSync, rows: number): [string, string | null][] {
  db.exec("DROP TABLE IF EXISTS temp.impact_vocab_row; CREATE VIRTUAL TABLE temp.impact_vocab_row USING fts5vocab(main, memory_fts, row)");
  try {
    const out: [string, string | null][] = [];
    let from = "";
    let n = 0;
    for (const r of db.prepare("SELECT term, doc FROM temp.impact_vocab_row").iterate() as Iterable<{ term: string; doc: number }>) {
      if (n >= rows) {
        out.push([from, r.term]);
        from = r.term;
        n = 0;
      }
      n += r.doc;
    }
    out.push([from, null]);
    return out;
  } finally {
    db.exec("DROP TABLE IF EXISTS temp.impact_vocab_row");
  }
}

/**
 * Every posting made again from the full-text index, in short steps (run). The first step marks
 * the postings unbuilt (recall asks FTS5 meanwhile), takes the build (a token each later step
 * checks: a second settle taking it over abandons this one) and empties the pending set: every
 * memory written from then on is pending, so a memory whose text changed between the steps that
 * read it is never answered from what they read, and the next merge puts it right. The last step
 * marks them built. Abandoned midway (busy, a crash, taken over), the postings stay unbuilt until
 * the next settle builds them again: they are derived, nothing is lost.
 */
export function rebuildPostings(db: DatabaseSync, run: StepRunner = (step) => step()): void {
  const token = Math.random();
  run(() => {
    db.prepare("INSERT OR REPLACE INTO impact_state(k, v) VALUES ('built', 0), ('build', ?), ('build_at', ?)").run(token, Date.now() / 1000);
    db.exec("DELETE FROM impact_pending");
  });
  const rows = stepRows();
  // one step: a DELETE without WHERE frees the tables' pages without visiting rows (659,236
  // postings at 10k: 19 ms of CPU; row by row, in steps, it had been most of a gc's rebuild)
  run(() => {
    stillOurs(db, token);
    db.exec("DELETE FROM impact_hits; DELETE FROM impact_terms; DELETE FROM impact_docs;");
  });
  // the lengths as of now (read outside a write transaction), written in steps
  const lens = lengthsOf(db, "all");
  for (let i = 0; i < lens.length; i += rows) {
    run(() => {
      stillOurs(db, token);
      putLengths(db, lens.slice(i, i + rows));
    });
  }
  const tokens = lens.reduce((a, l) => a + l.len, 0);
  const docs = lens.length;
  const avgdl = Math.max(1, tokens / Math.max(1, docs));
  db.exec("DROP TABLE IF EXISTS temp.impact_vocab; CREATE VIRTUAL TABLE temp.impact_vocab USING fts5vocab(main, memory_fts, instance)");
  try {
    // each range's postings, only of memories whose length was read (one written since is pending),
    // and its terms' counts from the postings written (what a merge subtracts)
    for (const [from, to] of termRanges(db, rows)) {
      const range = to === null ? "term >= ?" : "term >= ? AND term < ?";
      const args = to === null ? [from] : [from, to];
      run(() => {
        stillOurs(db, token);
        db.prepare(
          `INSERT INTO impact_hits(term, w, rid) SELECT t.term, ${weightSql(avgdl)}, t.rid FROM (SELECT term, doc AS rid, sum(${COLUMN_WEIGHT}) AS x FROM temp.impact_vocab WHERE ${range} GROUP BY term, doc) t JOIN impact_docs d ON d.rid = t.rid ORDER BY t.term`,
        ).run(...args);
        db.prepare(`INSERT INTO impact_terms(term, n) SELECT term, count(*) FROM impact_hits WHERE ${range} GROUP BY term`).run(...args);
      });
    }
  } finally {
    db.exec("DROP TABLE IF EXISTS temp.impact_vocab");
  }
  run(() => {
    stillOurs(db, token);
    db.exec("DELETE FROM impact_state WHERE k IN ('build', 'build_at')");
    saveState(db, { built: true, docs, tokens });
  });
}

/** A scratch full-text table with the index's tokenizer, for the pending memories' texts (and a query's words). */
function scratch(db: DatabaseSync): void {
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.impact_scratch USING fts5(content, gist, tags, entities, tokenize = 'porter unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS temp.impact_scratch_v USING fts5vocab(temp, impact_scratch, instance);
DELETE FROM temp.impact_scratch;`);
}

/** The indexed memories among these rids (a table of them), their text put into the scratch table. */
function pendingIntoScratch(db: DatabaseSync, rids: "impact_pending" | "temp.impact_batch" = "impact_pending"): void {
  scratch(db);
  db.exec(`INSERT INTO temp.impact_scratch(rowid, content, gist, tags, entities) SELECT d.rid, ${FTS_COLUMNS_OF_DOC} FROM memory_docs d WHERE d.rid IN (SELECT rid FROM ${rids})`);
}

/**
 * One batch of the pending memories merged into the postings (one step): their old postings and
 * lengths removed, the live ones' added at the current average length, and they are no longer
 * pending. Returns whether any were.
 */
function mergeBatch(db: DatabaseSync, batch: number): boolean {
  db.exec("DROP TABLE IF EXISTS temp.impact_batch");
  db.prepare("CREATE TEMP TABLE impact_batch AS SELECT rid FROM impact_pending ORDER BY rid LIMIT ?").run(batch);
  try {
    if ((db.prepare("SELECT count(*) AS n FROM temp.impact_batch").get() as { n: number }).n === 0) return false;
    slowStep();
    const s = stateOf(db);
    const gone = db.prepare("SELECT count(*) AS n, coalesce(sum(len), 0) AS tokens FROM impact_docs WHERE rid IN (SELECT rid FROM temp.impact_batch)").get() as { n: number; tokens: number };
    db.exec(`UPDATE impact_terms SET n = impact_terms.n - c.gone FROM (SELECT term, count(*) AS gone FROM impact_hits WHERE rid IN (SELECT rid FROM temp.impact_batch) GROUP BY term) c WHERE impact_terms.term = c.term;
DELETE FROM impact_terms WHERE n <= 0;
DELETE FROM impact_hits WHERE rid IN (SELECT rid FROM temp.impact_batch);
DELETE FROM impact_docs WHERE rid IN (SELECT rid FROM temp.impact_batch);`);
    const lens = lengthsOf(db, "temp.impact_batch");
    putLengths(db, lens);
    const docs = s.docs - gone.n + lens.length;
    const tokens = s.tokens - gone.tokens + lens.reduce((a, l) => a + l.len, 0);
    pendingIntoScratch(db, "temp.impact_batch");
    try {
      weighedCounts(db, "temp.impact_scratch_v");
      addPostings(db, Math.max(1, tokens / Math.max(1, docs)));
    } finally {
      db.exec("DROP TABLE IF EXISTS temp.impact_tf; DELETE FROM temp.impact_scratch");
    }
    db.exec("DELETE FROM impact_pending WHERE rid IN (SELECT rid FROM temp.impact_batch)");
    saveState(db, { built: true, docs, tokens });
    return true;
  } finally {
    db.exec("DROP TABLE IF EXISTS temp.impact_batch");
  }
}

/**
 * The pending memories merged into the postings, MERGE_BATCH at a time, each batch a step (run):
 * recall stays right after every step (a batch is no longer pending exactly when its postings
 * are in). At most the batches pending at the start (memories saved meanwhile wait for the next).
 */
export function mergePending(db: DatabaseSync, run: StepRunner = (step) => step()): void {
  const batch = Math.min(MERGE_BATCH, stepRows());
  const batches = Math.ceil(pendingCount(db, Number.MAX_SAFE_INTEGER) / batch);
  for (let i = 0; i < batches; i++) if (!run(() => stateOf(db).built && mergeBatch(db, batch))) return;
}

/** MERGE_FROM, or MEMSYNC_POSTINGS_MERGE_FROM (chaos runs and tests: merges of the few memories a sync brings). */
function mergeFromDefault(): number {
  const v = Number(process.env.MEMSYNC_POSTINGS_MERGE_FROM);
  return Number.isFinite(v) && v >= 1 ? Math.floor(v) : MERGE_FROM;
}

/** A build of another settle (another process) under way: its token there and a sign of life within BUILD_SILENT_S. */
function buildUnderWay(db: DatabaseSync): boolean {
  const at = (db.prepare("SELECT v FROM impact_state WHERE k = 'build_at'").get() as { v: number } | undefined)?.v;
  return buildToken(db) !== undefined && at !== undefined && Date.now() / 1000 - at < BUILD_SILENT_S;
}

/**
 * After a command that wrote a lot, in short steps (run; see StepRunner): the postings built when
 * the store is large enough and they are not, merged when enough memories are pending, rebuilt
 * when a quarter of the store is. Returns what it did. A build already under way in another
 * process is left to it.
 */
export function settlePostings(db: DatabaseSync, memories: number, mergeFrom = mergeFromDefault(), run: StepRunner = (step) => step()): "built" | "merged" | "none" {
  if (memories < boundedFrom()) return "none";
  const s = stateOf(db);
  const pending = pendingCount(db, Math.max(mergeFrom, Math.ceil(memories / 4)) + 1);
  if (!s.built || pending > memories / 4) {
    if (!s.built && buildUnderWay(db)) return "none";
    try {
      rebuildPostings(db, run);
    } catch (e) {
      if (e instanceof BuildTakenOver) return "none";
      throw e;
    }
    return "built";
  }
  if (pending === 0 || pending < mergeFrom) return "none";
  mergePending(db, run);
  return "merged";
}

/** One item of recall's FTS5 expression: a quoted word or phrase, a prefix when starred. */
interface Item {
  text: string;
  prefix: boolean;
}

/** recall's OR of quoted items, or null for anything else (an AND, NEAR, a column filter: FTS5 answers those). */
function itemsOf(match: string): Item[] | null {
  const out: Item[] = [];
  for (const part of match.split(" OR ")) {
    const m = /^"([^"]*)"(\*?)$/.exec(part.trim());
    if (!m) return null;
    out.push({ text: m[1]!, prefix: m[2] === "*" });
  }
  return out;
}

/** Each item's terms as FTS5's tokenizer makes them (through the scratch table, as rows of negative rid), in order. */
function itemTerms(db: DatabaseSync, items: readonly Item[]): string[][] {
  const put = db.prepare("INSERT INTO temp.impact_scratch(rowid, content, gist, tags, entities) VALUES (?, ?, '', '', '')");
  items.forEach((it, i) => put.run(-1 - i, it.text));
  const rows = db.prepare("SELECT term, doc, \"offset\" AS o FROM temp.impact_scratch_v WHERE doc < 0 ORDER BY doc DESC, o").all() as { term: string; doc: number; o: number }[];
  db.exec("DELETE FROM temp.impact_scratch WHERE rowid < 0");
  const out: string[][] = items.map(() => []);
  for (const r of rows) out[-1 - r.doc]!.push(r.term);
  return out;
}

export interface BoundedRow {
  json: string;
  score: number;
  terms: string | null;
}

/**
 * The `limit` best memories passing the filter (where/params: conditions on `m`, the memories
 * row) by BM25 over the postings, best first (score higher-is-better), then last used, then id;
 * null when the expression is not one the postings answer (the caller asks FTS5).
 *
 * Each word's terms weigh apart (a prefix: each term it begins, in the settled memories or the
 * pending ones); a phrase is read through its rarest term (whose postings hold every memory
 * holding the phrase, as FTS5 scores a phrase once, not each of its words).
 */
export function boundedSearch(db: DatabaseSync, match: string, where: readonly string[], params: readonly SQLInputValue[], limit: number): BoundedRow[] | null {
  const items = itemsOf(match);
  if (!items) return null;
  const s = stateOf(db);
  if (!s.built) return null;
  const pending = pendingCount(db, 1) > 0;
  if (pending) pendingIntoScratch(db);
  else scratch(db);
  try {
    const chosen = chosenTerms(db, items, s, pending);
    if (chosen === null) return null;
    if (chosen.size === 0) return [];
    const scores = pending ? pendingScores(db, chosen, s) : [];
    const list = [...chosen];
    const parts = list.map(() => "SELECT rid, w * ? AS x FROM (SELECT rid, w FROM impact_hits WHERE term = ? AND rid NOT IN (SELECT rid FROM impact_pending) ORDER BY w DESC LIMIT ?)");
    parts.push("SELECT json_extract(value, '$[0]') AS rid, json_extract(value, '$[1]') AS x FROM json_each(?)");
    const cond = where.length ? `WHERE ${where.join(" AND ")}` : "";
    const sql = `WITH s AS (SELECT rid, sum(x) AS score FROM (${parts.join(" UNION ALL ")}) GROUP BY rid),
      p AS (SELECT s.rid, s.score, m.last_used, m.id FROM s CROSS JOIN memories m ON m.rid = s.rid ${cond} ORDER BY s.score DESC, m.last_used DESC, m.id DESC LIMIT ?)
      SELECT d.json AS json, p.score AS score, d.terms AS terms FROM p JOIN memory_docs d ON d.rid = p.rid ORDER BY p.score DESC, p.last_used DESC, p.id DESC`;
    const args: SQLInputValue[] = [...list.flatMap(([t, w]) => [w, t, POSTINGS_PER_TERM]), JSON.stringify(scores), ...params, limit];
    return db.prepare(sql).all(...args) as unknown as BoundedRow[];
  } finally {
    db.exec("DELETE FROM temp.impact_scratch");
  }
}

/** The terms a query reads, each with its idf (null: too many to read). */
function chosenTerms(db: DatabaseSync, items: readonly Item[], s: State, pending: boolean): Map<string, number> | null {
  const termsByItem = itemTerms(db, items);
  const one = db.prepare("SELECT n FROM impact_terms WHERE term = ?");
  const range = db.prepare("SELECT term, n FROM impact_terms WHERE term >= ? AND term < ? LIMIT ?");
  const pendingRange = db.prepare("SELECT DISTINCT term FROM temp.impact_scratch_v WHERE term >= ? AND term < ? AND doc > 0");
  const chosen = new Map<string, number>();
  const N = Math.max(1, s.docs);
  const idf = (n: number) => Math.max(1e-6, Math.log((N - n + 0.5) / (n + 0.5)));
  const nOf = (t: string) => (one.get(t) as { n: number } | undefined)?.n ?? 0;
  const rarest = (ts: readonly string[]) => ts.reduce((best, t) => (nOf(t) < nOf(best) ? t : best));
  items.forEach((it, i) => {
    const ts = termsByItem[i]!;
    if (ts.length === 0) return;
    if (!it.prefix) {
      const t = rarest(ts);
      chosen.set(t, idf(nOf(t)));
      return;
    }
    // the words before the last are whole; the last one covers every term it begins
    if (ts.length > 1) {
      const t = rarest(ts.slice(0, -1));
      chosen.set(t, idf(nOf(t)));
    }
    const last = ts[ts.length - 1]!;
    const end = last.slice(0, -1) + String.fromCharCode(last.charCodeAt(last.length - 1) + 1);
    for (const r of range.all(last, end, TERMS_MOST + 1) as { term: string; n: number }[]) chosen.set(r.term, idf(r.n));
    if (pending) for (const r of pendingRange.all(last, end) as { term: string }[]) if (!chosen.has(r.term)) chosen.set(r.term, idf(nOf(r.term)));
  });
  return chosen.size > TERMS_MOST ? null : chosen;
}

/** The pending memories' scores for the chosen terms, exactly from their text in the scratch table: [rid, score] pairs. */
function pendingScores(db: DatabaseSync, chosen: ReadonlyMap<string, number>, s: State): [number, number][] {
  const lens = new Map(lengthsOf(db, "impact_pending").map((l) => [l.rid, l.len]));
  if (lens.size === 0) return [];
  const avgdl = Math.max(1, s.tokens / Math.max(1, s.docs));
  const tf = db.prepare(`SELECT doc AS rid, sum(${COLUMN_WEIGHT}) AS x FROM temp.impact_scratch_v WHERE term = ? AND doc > 0 GROUP BY doc`);
  const score = new Map<number, number>();
  for (const [term, idf] of chosen) {
    for (const r of tf.all(term) as { rid: number; x: number }[]) {
      const len = lens.get(r.rid);
      if (len === undefined) continue;
      const w = (r.x * (K1 + 1)) / (r.x + K1 * (1 - B + (B * len) / avgdl));
      score.set(r.rid, (score.get(r.rid) ?? 0) + idf * w);
    }
  }
  return [...score];
}
