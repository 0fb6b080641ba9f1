import { spawnSync } from "node:child_process";
import path from "node:path";
// Benchmark stores, written through the real store API (Store.open + store.write) after a real
// init, in creation order, so the layout rules (flat, then shard folders past 1,000 memories) apply
// exactly as in use. A generated store is reused while its manifest matches.

import fs from "node:fs";
import { searchMemories } from "../../src/ops/query.ts";
import { initStore } from "../../src/ops/init.ts";
import { createMemory, createRelation } from "../../src/core/records.ts";
import type { Memory } from "../../src/core/model/memory.ts";
import type { Relation } from "../../src/core/model/relation.ts";
import { planIsEmpty } from "../../src/store/refresh.ts";
import { Store } from "../../src/store/store.ts";
import { Corpus, RARE_WORDS } from "./corpus.ts";

/** Bump when the corpus or the generation changes, so stale stores are regenerated. */
export const GENERATOR_VERSION = 1;

/** The two common words and the rare word the cold search benchmarks look for. */
export const COMMON_QUERY = "connection timeout";
export const RARE_QUERY = RARE_WORDS[0];

export interface Manifest {
  generator_version: number;
  seed: number;
  size: number;
  memories: number;
  relations: number;
  flat_memories: number;
  shard_folders: number;
  bytes: number;
  /** The 10th memory written: two years old, in the flat folder. */
  old_id: string;
  old_path: string;
  /** A memory from the middle of the store, rewritten right before each "get recent" run. */
  mid_id: string;
  common_query: string;
  common_matches: number;
  rare_query: string;
  rare_matches: number;
  generated_at: string;
  generate_seconds: number;
}

export function manifestPath(dir: string): string {
  return `${dir}.manifest.json`;
}

function readManifest(dir: string): Manifest | null {
  try {
    return JSON.parse(fs.readFileSync(manifestPath(dir), "utf8")) as Manifest;
  } catch {
    return null;
  }
}

/** Record files of the shared folders (flat and sharded), and of scope local (.memsync/local/, never committed). */
function countFiles(dir: string): { flat: number; sharded: number; shards: number; local: number; bytes: number } {
  const out = { flat: 0, sharded: 0, shards: 0, local: 0, bytes: 0 };
  const local = `${dir}/.memsync/local/memories`;
  if (fs.existsSync(local)) {
    for (const e of fs.readdirSync(local, { withFileTypes: true, recursive: true })) if (e.isFile() && e.name.endsWith(".json")) out.local++;
  }
  for (const top of ["memories", "relations"]) {
    if (!fs.existsSync(`${dir}/${top}`)) continue;
    for (const e of fs.readdirSync(`${dir}/${top}`, { withFileTypes: true })) {
      if (e.isFile()) {
        if (top === "memories") out.flat++;
        out.bytes += fs.statSync(`${dir}/${top}/${e.name}`).size;
      } else if (e.isDirectory()) {
        const files = fs.readdirSync(`${dir}/${top}/${e.name}`);
        if (top === "memories") {
          out.shards++;
          out.sharded += files.length;
        }
        for (const f of files) out.bytes += fs.statSync(`${dir}/${top}/${e.name}/${f}`).size;
      }
    }
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Wait out memsync's "racily clean" window (2 s) and refresh fully, so every folder and file is
 * trusted: the cold commands then see the steady state of a store not being written to.
 */
export async function settle(dir: string): Promise<void> {
  await sleep(2100);
  const store = await Store.open(dir);
  try {
    await store.refresh(true);
    const again = await store.refresh(false);
    if (!planIsEmpty(again)) throw new Error(`store ${dir} did not settle: ${JSON.stringify(again).slice(0, 200)}`);
  } finally {
    store.close();
  }
}

export interface EnsureOptions {
  fresh: boolean;
  seed: number;
  log: (line: string) => void;
}

/** A store of `size` memories at `dir`: the existing one if it matches, else a new one. */
export async function ensureBenchStore(dir: string, size: number, opts: EnsureOptions): Promise<{ manifest: Manifest; reused: boolean }> {
  const old = readManifest(dir);
  if (!opts.fresh && old && old.generator_version === GENERATOR_VERSION && old.seed === opts.seed && old.size === size && fs.existsSync(`${dir}/.meta.json`)) {
    const counted = countFiles(dir);
    if (counted.flat + counted.sharded + counted.local === size) {
      opts.log(`  reusing ${dir} (${size} memories, generated ${old.generated_at}; --fresh to regenerate)`);
      await settle(dir);
      return { manifest: old, reused: true };
    }
    opts.log(`  ${dir} holds ${counted.flat + counted.sharded + counted.local} memories, expected ${size}: regenerating`);
  }
  return { manifest: await generate(dir, size, opts), reused: false };
}

async function generate(dir: string, size: number, opts: EnsureOptions): Promise<Manifest> {
  const t0 = performance.now();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(manifestPath(dir), { force: true });
  await initStore({ storeRoot: dir, hostName: "bench-host", user: "bench" }, { git: true });
  const store = await Store.open(dir);
  const corpus = new Corpus(size, opts.seed);
  const batch = 500;
  let memories = 0;
  let relations = 0;
  let oldId = "";
  let midId = "";
  let lastLog = t0;
  try {
    while (!corpus.done) {
      const ms: Memory[] = [];
      const rs: Relation[] = [];
      for (let k = 0; k < batch && !corpus.done; k++) {
        const { memory, relations: rels } = corpus.next();
        const created = memory.fields.created_at as number;
        ms.push(createMemory(memory.fields, memory.id, { now: created, machine: "bench-host", user: "bench" }));
        for (const r of rels) rs.push(createRelation({ from: r.from, to: r.to, type: r.type, strength: r.strength }, r.id, r.created_at));
      }
      await store.write((tx) => {
        for (const m of ms) tx.putMemory(m);
        for (const r of rs) tx.putRelation(r);
      });
      for (const m of ms) {
        memories++;
        if (memories === 10) oldId = m.id;
        if (memories === Math.ceil(size / 2)) midId = m.id;
      }
      relations += rs.length;
      const now = performance.now();
      if (now - lastLog > 5000 || corpus.done) {
        lastLog = now;
        const s = (now - t0) / 1000;
        opts.log(`  ${dir}: ${memories}/${size} memories, ${relations} relations, ${s.toFixed(1)} s (${Math.round(memories / s)}/s)`);
      }
    }
  } finally {
    store.close();
  }
  await settle(dir);
  // the search figures the cold benchmarks quote (matches among active and promoted memories)
  const check = await Store.open(dir);
  let common = 0;
  let rare = 0;
  let oldPath = "";
  try {
    const filter = { statuses: ["active", "promoted"] };
    common = (await searchMemories(check, COMMON_QUERY, filter, 1)).total;
    rare = (await searchMemories(check, RARE_QUERY, filter, 1)).total;
    oldPath = check.locate("memory", oldId)?.path ?? "";
  } finally {
    check.close();
  }
  const counted = countFiles(dir);
  const manifest: Manifest = {
    generator_version: GENERATOR_VERSION,
    seed: opts.seed,
    size,
    memories,
    relations,
    flat_memories: counted.flat,
    shard_folders: counted.shards,
    bytes: counted.bytes,
    old_id: oldId,
    old_path: oldPath,
    mid_id: midId,
    common_query: COMMON_QUERY,
    common_matches: common,
    rare_query: RARE_QUERY,
    rare_matches: rare,
    generated_at: new Date().toISOString(),
    generate_seconds: Math.round((performance.now() - t0) / 100) / 10,
  };
  fs.writeFileSync(manifestPath(dir), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * A copy of a store that commands may change: record files hard-linked (memsync only ever replaces
 * a record by renaming a new file over it, so the original never changes, and the index's inode
 * numbers stay valid); the index and everything else copied.
 */
export function scratchCopy(src: string, dst: string): void {
  fs.rmSync(dst, { recursive: true, force: true });
  fs.mkdirSync(dst);
  for (const name of fs.readdirSync(src)) {
    const link = name === "memories" || name === "relations";
    const r = spawnSync("cp", [link ? "-al" : "-a", path.join(src, name), path.join(dst, name)], { stdio: "inherit" });
    if (r.status !== 0) throw new Error(`copying ${src}/${name} failed`);
  }
}
