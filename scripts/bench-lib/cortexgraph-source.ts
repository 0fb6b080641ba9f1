import fs from "node:fs";
import path from "node:path";
import { makeRng } from "../../tests/helpers/rng.ts";

// A CortexGraph JSONL source for the import and pack benchmarks (issues 14, 16), generated with a
// fixed seed: engineering notes of 20-120 words, 1-4 tags, 0-3 entities, ages over two years,
// use counts, CortexGraph's every field, 2% of lines later replaced and 1% tombstoned.

const WORDS = "use cursor pagination for list endpoints because offset scans time out at a million rows redis caches sessions with a ttl postgres jsonb indexes gin kubernetes rollout waits for readiness probes retry with exponential backoff and jitter the queue consumer acks after commit feature flags gate the new checkout flow tests run in parallel shards the build caches node modules by lockfile hash".split(" ");
const TAGS = ["api", "db", "cache", "infra", "testing", "frontend", "auth", "perf", "ops", "security"];
const ENTITIES = ["PostgreSQL", "Redis", "Kubernetes", "React", "FastAPI", "Kafka", "Docker", "GraphQL"];

function uuid(r: () => number): string {
  const h = () => Math.floor(r() * 0x100000000).toString(16).padStart(8, "0");
  const a = h() + h() + h() + h();
  return `${a.slice(0, 8)}-${a.slice(8, 12)}-4${a.slice(13, 16)}-${"89ab"[Math.floor(r() * 4)]}${a.slice(17, 20)}-${a.slice(20, 32)}`;
}

export function generate(dir: string, n: number, relations: number, seed: number): void {
  const r = makeRng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const now = 1795000000;
  const ids: string[] = [];
  const lines: string[] = [];
  const memory = (id: string) => {
    const created = now - Math.floor(r() * 730 * 86400);
    const words = Array.from({ length: 20 + Math.floor(r() * 100) }, () => pick(WORDS)).join(" ");
    return JSON.stringify({
      id, content: `${words[0]!.toUpperCase()}${words.slice(1)}.`,
      meta: { tags: [...new Set(Array.from({ length: 1 + Math.floor(r() * 4) }, () => pick(TAGS)))], source: "cortexgraph", context: null, extra: {} },
      created_at: created, last_used: created + Math.floor(r() * 86400 * 30), use_count: Math.floor(r() * 12), strength: 1.0,
      status: r() < 0.9 ? "active" : "archived", promoted_at: null, promoted_to: null, embed: null,
      entities: [...new Set(Array.from({ length: Math.floor(r() * 4) }, () => pick(ENTITIES)))],
      review_priority: r() < 0.5 ? 0.0 : 1e-05, last_review_at: null, review_count: 0, cross_domain_count: 0,
    }).replace('"strength":1,', '"strength":1.0,');
  };
  for (let i = 0; i < n; i++) {
    const id = uuid(r);
    ids.push(id);
    lines.push(memory(id));
    if (r() < 0.02) lines.push(memory(pick(ids)));
    if (r() < 0.01) {
      const gone = uuid(r);
      lines.push(memory(gone), JSON.stringify({ id: gone, _deleted: true }));
    }
  }
  fs.writeFileSync(path.join(dir, "memories.jsonl"), `${lines.join("\n")}\n`);
  const rels = Array.from({ length: relations }, (_, i) => {
    const from = pick(ids);
    let to = pick(ids);
    while (to === from) to = pick(ids);
    return JSON.stringify({ id: uuid(r), from_memory_id: from, to_memory_id: to, relation_type: pick(["related", "supports", "causes"]), strength: Math.round(r() * 100) / 100, created_at: now - i, metadata: {} });
  });
  fs.writeFileSync(path.join(dir, "relations.jsonl"), `${rels.join("\n")}\n`);
}

