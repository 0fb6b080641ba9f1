import type { DatabaseSync, StatementSync } from "node:sqlite";
import { ftsTermList, ftsTermsOf } from "./fts-tokens.ts";

// How many memories hold each term of the full-text index, kept on every write (index version
// 12), so recall's unfiltered counts of a word, a prefix or a phrase with an absent word are
// looked up instead of asked of FTS5: FTS5 keeps no such count, and counting a term's matches
// reads its list, up to the bound asked (a word to 2,000) or whole (a prefix whose words all fall
// short, a phrase): recall's ~20 narrowing counts were ~5 ms of a cold hook at 10k and grew with
// the store (issue 16, branch ftsbound30). A count here is the count FTS5 gives or none: the
// terms are FTS5's own (fts-tokens.ts where it can tell them, FTS5 itself otherwise), and a
// count that the table cannot tell exactly (a phrase whose words are all present, a prefix over
// several terms short of the bound) is left to FTS5.
//
// Everything that writes the full-text index (index-db.ts: putMemory, dropMemoryRow,
// deleteFiles, clear, a rebuild) moves these counts through this module, so the two stay one.

export const TERM_DOCS_TABLE = "CREATE TABLE IF NOT EXISTS term_docs (term TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;";

/** What the full-text row of a memory is made of (index-db.ts putMemory): content, gist, tags, entities. */
export interface SearchText {
  content: string;
  gist: string;
  tags: readonly string[];
  entities: readonly string[];
}

/** The searchable text of an indexed record's JSON; null when it does not parse. */
export function searchTextOfJson(json: string): SearchText | null {
  try {
    const m = JSON.parse(json) as { content?: unknown; gist?: unknown; meta?: { tags?: unknown }; entities?: unknown };
    const list = (x: unknown) => (Array.isArray(x) ? x.filter((v): v is string => typeof v === "string") : []);
    return { content: typeof m.content === "string" ? m.content : "", gist: typeof m.gist === "string" ? m.gist : "", tags: list(m.meta?.tags), entities: list(m.entities) };
  } catch {
    return null;
  }
}

/** The full-text tokenizer, for the texts fts-tokens.ts does not tell. */
const PROBE = `CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_probe USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2', detail = none);
CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_probe_rows USING fts5vocab(temp, term_probe, row);`;

/** A prefix's terms: how many, the largest count and the one count when there is one. */
const PREFIX_SQL = "SELECT count(*) AS terms, coalesce(max(n), 0) AS most FROM term_docs WHERE term >= ?1 AND term < ?2 AND n > 0";

export class TermDocs {
  private readonly stmts = new Map<string, StatementSync>();
  private probing = false;

  constructor(private readonly db: DatabaseSync) {}

  private q(sql: string): StatementSync {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /** The distinct terms FTS5 indexes for a memory's searchable text. */
  termsOf(t: SearchText): Set<string> {
    const texts = [t.content, t.gist, t.tags.join(" "), t.entities.join(" ")];
    return ftsTermsOf(texts) ?? this.probed(texts);
  }

  /** FTS5's own terms of texts holding characters fts-tokens.ts does not tell (an accented letter, CJK). */
  private probed(texts: readonly string[]): Set<string> {
    if (!this.probing) {
      this.db.exec(PROBE);
      this.probing = true;
    }
    const ins = this.q("INSERT INTO temp.term_probe(x) VALUES (?)");
    try {
      for (const t of texts) ins.run(t);
      return new Set((this.q("SELECT term FROM temp.term_probe_rows").all() as { term: string }[]).map((r) => r.term));
    } finally {
      this.q("DELETE FROM temp.term_probe").run();
    }
  }

  /** One memory's text indexed in place of another's (either null: none): the counts of the terms only one of them holds move. */
  replace(was: SearchText | null, now: SearchText | null): void {
    const before = was ? this.termsOf(was) : new Set<string>();
    const after = now ? this.termsOf(now) : new Set<string>();
    this.add([...after].filter((t) => !before.has(t)), 1);
    this.add([...before].filter((t) => !after.has(t)), -1);
  }

  /** Memories' texts dropped from the index, their terms counted together. */
  removeAll(texts: readonly SearchText[]): void {
    const gone = new Map<string, number>();
    for (const t of texts) for (const term of this.termsOf(t)) gone.set(term, (gone.get(term) ?? 0) + 1);
    this.addCounted(gone, -1);
  }

  private add(terms: readonly string[], delta: 1 | -1): void {
    if (terms.length === 0) return;
    this.addCounted(new Map(terms.map((t) => [t, 1])), delta);
  }

  private addCounted(counts: Map<string, number>, sign: 1 | -1): void {
    if (counts.size === 0) return;
    const rows = JSON.stringify([...counts].map(([t, n]) => [t, n * sign]));
    this.q(
      `INSERT INTO term_docs(term, n) SELECT value ->> 0, value ->> 1 FROM json_each(?) WHERE true
       ON CONFLICT(term) DO UPDATE SET n = n + excluded.n`,
    ).run(rows);
    if (sign < 0) this.q("DELETE FROM term_docs WHERE n <= 0 AND term IN (SELECT value ->> 0 FROM json_each(?))").run(rows);
  }

  clear(): void {
    this.q("DELETE FROM term_docs").run();
  }

  /** The counts made again from every indexed record (an upgrade), a page of records at a time. */
  fill(): void {
    this.clear();
    const page = this.db.prepare("SELECT rid, json FROM memory_docs WHERE rid > ? ORDER BY rid LIMIT 1000");
    const counts = new Map<string, number>();
    for (let after = Number.MIN_SAFE_INTEGER; ; ) {
      const rows = page.all(after) as { rid: number; json: string }[];
      if (rows.length === 0) break;
      for (const r of rows) {
        const t = searchTextOfJson(r.json);
        if (t) for (const term of this.termsOf(t)) counts.set(term, (counts.get(term) ?? 0) + 1);
      }
      after = rows[rows.length - 1]!.rid;
    }
    this.addCounted(counts, 1);
  }

  private df(term: string): number {
    return (this.q("SELECT n FROM term_docs WHERE term = ?").get(term) as { n: number } | undefined)?.n ?? 0;
  }

  /**
   * How many memories match an FTS5 expression of one quoted phrase ("connection", "connection
   * pool", or a prefix "connection"*), unfiltered, up to `upTo` (Infinity: every one), when the
   * counts tell it exactly; null otherwise (ask FTS5). One term: its count. A phrase of several:
   * 0 when a term is in no memory. A prefix: 0 when no term has it; its one term's count; or
   * `upTo` when one of its terms alone reaches it.
   */
  countUpTo(match: string, upTo: number): number | null {
    const m = /^"([^"]*)"(\*?)$/.exec(match);
    if (!m) return null;
    const terms = ftsTermList(m[1]!);
    if (terms === null || terms.length === 0) return null;
    const prefix = m[2] === "*";
    const last = terms[terms.length - 1]!;
    // the words before the last are whole terms in a phrase, prefix or not
    const whole = prefix ? terms.slice(0, -1) : terms;
    if (whole.some((t) => this.df(t) === 0)) return 0;
    if (!prefix) return terms.length === 1 ? Math.min(this.df(last), upTo) : null;
    const end = last.slice(0, -1) + String.fromCharCode(last.charCodeAt(last.length - 1) + 1);
    const r = this.q(PREFIX_SQL).get(last, end) as { terms: number; most: number };
    if (r.terms === 0) return 0;
    if (terms.length > 1) return null;
    if (r.terms === 1 || r.most >= upTo) return Math.min(r.most, upTo);
    return null;
  }
}
