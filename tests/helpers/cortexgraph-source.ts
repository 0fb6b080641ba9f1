import fs from "node:fs";
import path from "node:path";
import { tempDir } from "./env.ts";
import { makeRng } from "./rng.ts";

/** A CortexGraph source of n memories of varied words (one import: one process, not n saves). */
export function cortexgraphSource(n: number): string {
  const dir = tempDir("memsync-size-src-");
  const next = makeRng(1616);
  const words = "cache deploy token retry queue worker schema index shard replica timeout billing invoice tenant session cursor webhook migration rollback lock pool region latency budget alert".split(" ");
  const pick = () => words[Math.floor(next() * words.length)]!;
  const hex = (k: number) => Array.from({ length: k }, () => Math.floor(next() * 16).toString(16)).join("");
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      id: `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`,
      content: `Note ${i}: the ${pick()} ${pick()} keeps its ${pick()} for ${1 + Math.floor(next() * 90)} seconds after a ${pick()} ${pick()}`,
      meta: { tags: [pick(), pick()] },
      created_at: 1700000000 + i,
      last_used: 1700000000 + i,
      use_count: i % 7,
      strength: 1.0,
      status: "active",
    }),
  );
  fs.writeFileSync(path.join(dir, "memories.jsonl"), `${lines.join("\n")}\n`);
  fs.writeFileSync(path.join(dir, "relations.jsonl"), "");
  return dir;
}
