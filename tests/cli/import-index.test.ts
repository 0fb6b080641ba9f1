import assert from "node:assert/strict";
import fs from "node:fs";
import { DatabaseSync } from "node:sqlite";
import path from "node:path";
import { test } from "node:test";
import { memsync, memsyncJson, tempDir } from "../helpers/env.ts";

// An import writes its index rows as it goes, and its record files' rows once the threads that
// made the files are done (src/store/parallel-create.ts): the index it leaves must be the one a
// rebuild from the files gives (`memsync reindex`), row for row, compared by id (row numbers
// follow the order rows came in, which a rebuild does not keep). 1,200 memories: enough for the
// memories to be built on threads (ops/import-build.ts), whose texts and terms the rows take.

function dump(store: string): Record<string, unknown[]> {
  const db = new DatabaseSync(path.join(store, ".memsync/index.db"), { readOnly: true });
  const all = (sql: string) => db.prepare(sql).all().map((r) => JSON.stringify(r));
  try {
    return {
      memories: all("SELECT id, path, type, status, project, created_at, last_used, use_count, strength, fingerprint, conflicts, scope, confidence FROM memories ORDER BY id"),
      docs: all("SELECT m.id, d.json, d.terms FROM memory_docs d JOIN memories m ON m.rid = d.rid ORDER BY m.id"),
      fts: all("SELECT m.id, f.content, f.gist, f.tags, f.entities FROM memory_fts f JOIN memories m ON m.rid = f.rowid ORDER BY m.id"),
      search: all("SELECT m.id FROM memory_fts f JOIN memories m ON m.rid = f.rowid WHERE memory_fts MATCH 'cache' ORDER BY m.id"),
      tags: all("SELECT m.id, t.tag FROM memory_tags t JOIN memories m ON m.rid = t.rid ORDER BY m.id, t.tag"),
      entities: all("SELECT m.id, e.entity FROM memory_entities e JOIN memories m ON m.rid = e.rid ORDER BY m.id, e.entity"),
      relations: all("SELECT * FROM relations ORDER BY id"),
      // indexed_at is when a row was made: a rebuild makes them later
      files: all("SELECT path, dir, kind, id, mtime, size, ino, problem FROM files ORDER BY path"),
    };
  } finally {
    db.close();
  }
}

test("an import of 1,200 memories and 180 relations (built on threads) leaves the index a rebuild from its files gives", { timeout: 180_000 }, () => {
  const src = tempDir("memsync-import-src-");
  const words = ["cache", "deploy", "schema", "retry", "token budget", "index"];
  const ids = Array.from({ length: 1200 }, () => crypto.randomUUID());
  const mem = ids.map((id, i) => JSON.stringify({ id, content: `note ${i}: the ${words[i % words.length]} ${words[(i * 7) % words.length]} decision`, meta: { tags: [`t${i % 5}`, "imported"], source: "x" }, entities: i % 3 ? [`Entity${i % 11}`] : [], created_at: 1700000000 + i, last_used: 1700000500 + i, use_count: i % 9, strength: 1.0, status: i % 10 === 0 ? "archived" : "active" }));
  const rel = Array.from({ length: 180 }, (_, i) => JSON.stringify({ id: crypto.randomUUID(), from_memory_id: ids[i]!, to_memory_id: ids[i + 300]!, relation_type: "related", strength: 0.5, created_at: 1700000000 + i }));
  fs.writeFileSync(path.join(src, "memories.jsonl"), `${mem.join("\n")}\n`);
  fs.writeFileSync(path.join(src, "relations.jsonl"), `${rel.join("\n")}\n`);
  const store = path.join(tempDir(), "store");
  assert.equal(memsync(["init", store]).code, 0);
  const out = memsyncJson(["--store", store, "import", "cortexgraph", src]);
  assert.deepEqual([out.memories.imported, out.relations.imported], [1200, 180]);
  const imported = dump(store);
  assert.equal(imported.files!.length, 1380);
  assert.ok(imported.search!.length > 0);
  const r = memsync(["--store", store, "reindex"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(dump(store), imported);
});
