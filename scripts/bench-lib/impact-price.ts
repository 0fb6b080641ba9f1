// Prices an impact-ordered postings index of memsync's own (issue 16, branch ftsbound30): recall's
// candidate search reads every match of its chosen terms (FTS5's bm25 reads each phrase's whole
// list before the first score), so its cost grows with the store; postings kept per term in
// the order of their BM25 weight would let a query read at most K of each. Nothing in src/ uses
// this: it builds the postings on a copy of a bench store's index and measures
//   - the write side: rows and bytes added, and the CPU of one memory's postings in a fresh process;
//   - the read side, in fresh processes: FTS5's ranked search of the query's words (bm25, the 25
//     best) against the K best postings of each word's terms scored by the same BM25 formula;
//   - how many of FTS5's 25 best the postings find (single words only: phrases are FTS5's).
//
//   bun scripts/bench-lib/impact-price.ts STORE [--k 100] [--runs 7]
//   (child modes: --child fts|impact INDEX QUERY K; --child write INDEX)

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { matchAny, recallTerms } from "../../src/core/recall-rank.ts";
import { ftsTermList } from "./fts-tokens.ts";
import { TUNE27_PARAPHRASE } from "../../tests/fixtures/recall-corpus/tune27.ts";
import { RECALL_PROMPTS } from "./recall-bench.ts";

const K1 = 1.2;
const B = 0.75;
/** memory_fts's columns and recall's bm25 weights (store/index-db.ts): content, gist, tags, entities. */
const WEIGHTS = [1.0, 0.8, 2.0, 2.0];
const PAGE = 25;

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** A column's terms; text fts-tokens.ts cannot tell is split on anything not a letter or digit (a pricing: close enough). */
const termsOf = (text: string): string[] => ftsTermList(text) ?? ftsTermList(text.normalize("NFD").replace(/[^A-Za-z0-9]+/g, " ")) ?? [];

function columns(json: string): string[] {
  const m = JSON.parse(json) as { content?: string; gist?: string | null; meta?: { tags?: string[] }; entities?: string[] };
  return [m.content ?? "", m.gist ?? "", (m.meta?.tags ?? []).join(" "), (m.entities ?? []).join(" ")];
}

/** Each term's weighted frequency in a memory (FTS5 bm25's aFreq) and the memory's length in tokens. */
function freqs(json: string): { f: Map<string, number>; len: number } {
  const f = new Map<string, number>();
  let len = 0;
  columns(json).forEach((text, c) => {
    const ts = termsOf(text);
    len += ts.length;
    for (const t of ts) f.set(t, (f.get(t) ?? 0) + WEIGHTS[c]!);
  });
  return { f, len };
}

const weight = (f: number, len: number, avgdl: number) => (f * (K1 + 1)) / (f + K1 * (1 - B + (B * len) / avgdl));
const idf = (n: number, hits: number) => Math.max(1e-6, Math.log((n - hits + 0.5) / (hits + 0.5)));

const SCHEMA = `CREATE TABLE IF NOT EXISTS term_hits (term TEXT NOT NULL, w REAL NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (term, w, rid)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS term_stats (term TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS hit_meta (k TEXT PRIMARY KEY, v REAL NOT NULL);`;

function build(file: string): { rows: number; seconds: number; bytesBefore: number; bytesAfter: number } {
  const db = new DatabaseSync(file);
  const size = () => {
    const r = db.prepare("SELECT page_count * page_size AS b FROM pragma_page_count(), pragma_page_size()").get() as { b: number };
    return r.b;
  };
  db.exec("PRAGMA journal_mode = DELETE");
  const bytesBefore = size();
  const t0 = performance.now();
  db.exec(SCHEMA);
  const docs = db.prepare("SELECT rid, json FROM memory_docs").all() as { rid: number; json: string }[];
  const made = docs.map((d) => ({ rid: d.rid, ...freqs(d.json) }));
  const avgdl = made.reduce((a, d) => a + d.len, 0) / Math.max(1, made.length);
  const df = new Map<string, number>();
  for (const d of made) for (const t of d.f.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const ins = db.prepare("INSERT INTO term_hits(term, w, rid) VALUES (?, ?, ?)");
  let rows = 0;
  db.exec("BEGIN");
  for (const d of made)
    for (const [t, f] of d.f) {
      ins.run(t, weight(f, d.len, avgdl), d.rid);
      rows++;
    }
  const st = db.prepare("INSERT INTO term_stats(term, n) VALUES (?, ?)");
  for (const [t, n] of df) st.run(t, n);
  db.prepare("INSERT OR REPLACE INTO hit_meta(k, v) VALUES ('n', ?), ('avgdl', ?)").run(made.length, avgdl);
  db.exec("COMMIT");
  db.exec("VACUUM");
  const seconds = (performance.now() - t0) / 1000;
  const bytesAfter = size();
  db.close();
  return { rows, seconds, bytesBefore, bytesAfter };
}

/** The query's words as recall has them (stop words out), each word's terms (a prefix word's every term). */
function queryWords(q: string): string[] {
  return recallTerms(q).words;
}

/** FTS5's 25 best of the query's words (bm25, unfiltered): rids. */
function ftsBest(db: DatabaseSync, words: string[]): number[] {
  return (
    db.prepare(`SELECT rowid AS rid FROM memory_fts WHERE memory_fts MATCH ? ORDER BY bm25(memory_fts, ${WEIGHTS.join(", ")}) LIMIT ${PAGE}`).all(matchAny(words)) as {
      rid: number;
    }[]
  ).map((r) => r.rid);
}

/**
 * The postings' 25 best: each word's terms (a prefix word: every term it begins; FTS5 folds them
 * into one phrase, here each is weighed apart), the K best postings of each, scored by the BM25
 * formula with idf from the kept counts.
 */
function impactBest(db: DatabaseSync, words: string[], k: number): number[] {
  const meta = Object.fromEntries((db.prepare("SELECT k, v FROM hit_meta").all() as { k: string; v: number }[]).map((r) => [r.k, r.v]));
  const n = meta.n!;
  const one = db.prepare("SELECT term, n FROM term_stats WHERE term = ?");
  const range = db.prepare("SELECT term, n FROM term_stats WHERE term >= ? AND term < ?");
  const top = db.prepare("SELECT w, rid FROM term_hits WHERE term = ? ORDER BY w DESC LIMIT ?");
  const score = new Map<number, number>();
  for (const w of words) {
    const ts = ftsTermList(w);
    if (!ts || ts.length !== 1) continue;
    const t = ts[0]!;
    const terms = (w.length >= 5 ? range.all(t, t.slice(0, -1) + String.fromCharCode(t.charCodeAt(t.length - 1) + 1)) : [one.get(t)].filter(Boolean)) as { term: string; n: number }[];
    for (const { term, n: hits } of terms) {
      const i = idf(n, hits);
      for (const r of top.all(term, k) as { w: number; rid: number }[]) score.set(r.rid, (score.get(r.rid) ?? 0) + i * r.w);
    }
  }
  return [...score].sort((a, b) => b[1] - a[1]).slice(0, PAGE).map(([rid]) => rid);
}

function child(mode: string, file: string, query: string, k: number): void {
  const t0 = cpu();
  const db = new DatabaseSync(file, { readOnly: mode !== "write" });
  if (mode === "write") {
    // one memory's postings added, as a save would add them (a copy of an indexed memory under a new rid)
    const doc = db.prepare("SELECT json FROM memory_docs ORDER BY rid DESC LIMIT 1").get() as { json: string };
    const avgdl = (db.prepare("SELECT v FROM hit_meta WHERE k = 'avgdl'").get() as { v: number }).v;
    const t1 = cpu();
    const { f, len } = freqs(doc.json);
    const t2 = cpu();
    db.exec("BEGIN");
    const ins = db.prepare("INSERT INTO term_hits(term, w, rid) SELECT value ->> 0, value ->> 1, ?2 FROM json_each(?1)");
    ins.run(JSON.stringify([...f].map(([t, x]) => [t, weight(x, len, avgdl)])), 1e9);
    const st = db.prepare("INSERT INTO term_stats(term, n) SELECT value, 1 FROM json_each(?) WHERE true ON CONFLICT(term) DO UPDATE SET n = n + 1");
    st.run(JSON.stringify([...f.keys()]));
    const t3 = cpu();
    db.exec("ROLLBACK");
    console.log(JSON.stringify({ tokenize: t2 - t1, insert: t3 - t2, terms: f.size }));
    return;
  }
  const words = queryWords(query);
  const t1 = cpu();
  const best = mode === "fts" ? ftsBest(db, words) : impactBest(db, words, k);
  const t2 = cpu();
  console.log(JSON.stringify({ ms: t2 - t1, open: t1 - t0, best }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function main(): void {
  const args = process.argv.slice(2);
  if (args[0] === "--child") {
    child(args[1]!, args[2]!, args[3] ?? "", Number(args[4] ?? 100));
    return;
  }
  const store = args[0]!;
  const k = Number(args[args.indexOf("--k") + 1] ?? 100) || 100;
  const runs = Number(args.includes("--runs") ? args[args.indexOf("--runs") + 1] : 7);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "impact-price-"));
  const file = path.join(work, "index.db");
  fs.copyFileSync(path.join(store, ".memsync/index.db"), file);
  for (const ext of ["-wal", "-shm"]) if (fs.existsSync(path.join(store, `.memsync/index.db${ext}`))) fs.copyFileSync(path.join(store, `.memsync/index.db${ext}`), file + ext);
  const built = build(file);
  console.log(`${store}: ${built.rows} postings built in ${built.seconds.toFixed(1)} s; index ${(built.bytesBefore / 1e6).toFixed(1)} -> ${(built.bytesAfter / 1e6).toFixed(1)} MB (after VACUUM)`);
  const run = (...a: string[]) => JSON.parse(spawnSync(process.execPath, [import.meta.filename, "--child", ...a], { encoding: "utf8" }).stdout) as Record<string, unknown>;
  const writes = Array.from({ length: runs }, () => run("write", file) as { tokenize: number; insert: number; terms: number });
  console.log(`one memory's postings in a fresh process (median of ${runs}): tokenize ${median(writes.map((w) => w.tokenize)).toFixed(2)} ms, insert ${median(writes.map((w) => w.insert)).toFixed(2)} ms, ${writes[0]!.terms} terms`);
  const prompts: Record<string, string> = { ...RECALL_PROMPTS, paraphrase: "the db keeps dropping connections at night" };
  console.log(`| prompt | words | FTS5 bm25, 25 best: CPU ms | postings, K=${k}: CPU ms | FTS5's 25 found |`);
  console.log("|--|--:|--:|--:|--:|");
  for (const [name, q] of Object.entries(prompts)) {
    const fts: number[] = [];
    const imp: number[] = [];
    let a: number[] = [];
    let b: number[] = [];
    for (let i = 0; i < runs; i++) {
      const x = run("fts", file, q, String(k)) as { ms: number; best: number[] };
      const y = run("impact", file, q, String(k)) as { ms: number; best: number[] };
      fts.push(x.ms);
      imp.push(y.ms);
      a = x.best;
      b = y.best;
    }
    const found = a.filter((r) => b.includes(r)).length;
    console.log(`| ${name} | ${queryWords(q).length} | ${median(fts).toFixed(2)} | ${median(imp).toFixed(2)} | ${found} of ${a.length} |`);
  }
  // how many of FTS5's 25 the postings find, over a tuning batch's paraphrases (one process, warm)
  const db = new DatabaseSync(file, { readOnly: true });
  let found = 0;
  let of = 0;
  for (const [q] of TUNE27_PARAPHRASE) {
    const words = queryWords(q);
    if (words.length === 0) continue;
    const a = ftsBest(db, words);
    const b = impactBest(db, words, k);
    found += a.filter((r) => b.includes(r)).length;
    of += a.length;
  }
  db.close();
  console.log(`tune27 paraphrases (${TUNE27_PARAPHRASE.length}): the postings found ${found} of FTS5's ${of} best (${((100 * found) / Math.max(1, of)).toFixed(1)}%)`);
  fs.rmSync(work, { recursive: true, force: true });
}

main();
