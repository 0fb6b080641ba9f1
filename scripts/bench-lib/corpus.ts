// A deterministic corpus of realistic memories for the benchmark: what an agent working on a
// dozen projects for two years would have captured. Same seed, same memories, same ids, so runs on
// different days and machines measure the same store.

import type { RelationType } from "../../src/core/model/vocab.ts";
import type { JsonObject } from "../../src/core/records.ts";

/** mulberry32: a small, fast, seedable PRNG (32-bit state). */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  /** k distinct items. */
  some<T>(xs: readonly T[], k: number): T[] {
    const pool = [...xs];
    const out: T[] = [];
    while (out.length < k && pool.length) out.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0]!);
    return out;
  }
  weighted<T extends string>(table: Readonly<Record<T, number>>): T {
    const entries = Object.entries(table) as [T, number][];
    let r = this.next() * entries.reduce((a, [, w]) => a + w, 0);
    for (const [k, w] of entries) {
      r -= w;
      if (r <= 0) return k;
    }
    return entries[entries.length - 1]![0];
  }
  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = Math.max(this.next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }
  hex(n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += Math.floor(this.next() * 16).toString(16);
    return s;
  }
}

export const ENTITIES = [
  "PostgreSQL", "Redis", "Kubernetes", "React", "FastAPI", "Docker", "Terraform", "GraphQL", "Kafka", "RabbitMQ",
  "Elasticsearch", "MongoDB", "SQLite", "Nginx", "Node.js", "TypeScript", "Python", "Go", "Rust", "AWS Lambda",
  "S3", "CloudFront", "Vite", "Next.js", "Django", "Flask", "Celery", "Prometheus", "Grafana", "OpenTelemetry",
  "Sentry", "GitHub Actions", "Jest", "Vitest", "Playwright", "pnpm", "Bun", "Deno", "Prisma", "SQLAlchemy",
  "Alembic", "gRPC", "Protobuf", "Tailwind", "Webpack", "ESLint", "Helm", "Argo CD", "Vault", "Stripe",
  "Auth0", "OAuth", "JWT", "WebSocket", "ClickHouse", "DuckDB", "pgvector", "Pandas", "PyTorch", "Cloudflare Workers",
] as const;

export const TAGS = [
  "api", "database", "performance", "testing", "security", "deployment", "ci", "frontend", "backend", "auth",
  "caching", "logging", "monitoring", "migrations", "refactoring", "config", "docker", "kubernetes", "infra", "networking",
  "concurrency", "error-handling", "validation", "pagination", "search", "queue", "async", "typescript", "python", "docs",
  "code-style", "dependencies", "build", "release", "observability", "data-model", "schema", "indexing", "rate-limiting", "retries",
  "timeouts", "memory-leak", "flaky-tests", "debugging", "architecture", "ux", "accessibility", "i18n", "storage", "backup",
  "cost", "privacy", "onboarding", "tooling", "linting", "git", "review", "billing", "email", "feature-flags",
] as const;

export const PROJECTS = [
  "billing-service", "web-dashboard", "mobile-app", "data-pipeline", "auth-gateway", "search-api", "infra-live",
  "ml-platform", "docs-site", "cli-tools", "notification-service", "analytics",
] as const;

const MACHINES = ["laptop-3f2a1c", "desktop-9b0e77", "ci-runner-12ab34", "devbox-5c81d0"] as const;
const USERS = ["alice", "bob", "carol", "dmitri"] as const;
const AGENTS = ["claude-code", "codex", "cursor", null] as const;
const CATEGORIES = ["database", "frontend", "infra", "testing", "security", "api", "tooling", "process", null, null] as const;

/** Words that appear in about 0.1% of memories: what `search <a rare word>` looks for. */
export const RARE_WORDS = ["kestrel", "quokka", "zeppelin", "marzipan", "obsidian"] as const;

// Phrase pools. Every sentence is built from these, so word frequencies look like an engineer's
// notes: a long tail of technical nouns, some words (connection, timeout, cache) very common.
const AREAS = [
  "the checkout flow", "the billing worker", "the admin dashboard", "the public API", "the ingestion job",
  "the search endpoint", "the login page", "the nightly export", "the webhook handler", "the report generator",
  "the mobile sync", "the notification fan-out", "the migration scripts", "the CI pipeline", "the staging cluster",
];
const PURPOSES = [
  "session storage", "background jobs", "full-text search", "rate limiting", "feature flags", "audit logging",
  "request tracing", "schema migrations", "blob storage", "cache invalidation", "pagination of list endpoints",
  "retrying failed webhooks", "streaming events", "secrets management", "end-to-end tests", "local development",
];
const REASONS = [
  "it keeps the connection count bounded under load",
  "the team already runs it in production and knows its failure modes",
  "it removed a whole class of race conditions we kept hitting",
  "the managed offering costs less than the engineering time to run our own",
  "cold start latency dropped from seconds to milliseconds",
  "it gives us transactions across the two tables that must change together",
  "the previous approach leaked memory after a few hours of traffic",
  "it lets us replay events after a bad deploy",
  "type errors now show up at build time instead of in production",
  "the query planner picks the index reliably once statistics are fresh",
  "the timeout behaviour is explicit and testable",
  "it keeps secrets out of the repository and out of the logs",
];
const SYMPTOMS = [
  "times out after exactly thirty seconds", "returns stale data for a few minutes after a write",
  "runs out of connections during the nightly batch", "deadlocks when two workers update the same row",
  "drops messages when the consumer restarts", "doubles the memory use after every deploy",
  "fails intermittently in CI but never locally", "logs the full request body including tokens",
  "slows down badly once the table passes ten million rows", "rejects valid tokens right after key rotation",
  "serves the old bundle because of an aggressive cache header", "retries forever on a permanent error",
];
const CONDITIONS = [
  "the cache is cold", "traffic spikes after a marketing email", "the migration runs inside a transaction",
  "two pods start at the same time", "the clock skew between nodes exceeds a second", "the payload is larger than one megabyte",
  "the connection pool is shared between web and worker processes", "a test leaves data behind", "the region fails over",
  "the feature flag is toggled while requests are in flight",
];
const FIXES = [
  "setting an explicit statement timeout and retrying with backoff",
  "moving the slow part into a background job with an idempotency key",
  "adding a composite index on the filter columns and running analyze",
  "pinning the dependency and adding a regression test",
  "using a separate connection pool per process type",
  "invalidating the cache entry in the same transaction as the write",
  "switching to cursor pagination keyed on the creation time",
  "redacting the authorization header in the logging middleware",
  "raising the consumer prefetch and acknowledging only after the write commits",
  "making the migration additive first and dropping the old column a release later",
  "running the tests with a fresh database schema per worker",
];
const PRACTICES = [
  "small pull requests", "explicit return types on exported functions", "structured logging with a request id",
  "feature flags for risky changes", "integration tests against a real database", "immutable infrastructure",
  "one migration per pull request", "typed configuration loaded once at start-up", "early returns over nested conditions",
  "named exports", "dependency injection through constructor parameters", "snapshot tests only for serializers",
  "health checks that exercise the database connection", "semantic version tags on every release",
];
const FACTS = [
  "keeps its default connection limit at one hundred", "stores timestamps in UTC without a zone",
  "is configured through environment variables in every environment", "runs three replicas behind the load balancer",
  "caches responses for five minutes at the edge", "has a hard payload limit of six megabytes",
  "rotates its signing keys every ninety days", "needs the extension enabled before the migration runs",
  "is pinned to the previous major version until the upgrade lands", "emits metrics on the standard port",
];
const FILLER = [
  "The change is covered by an integration test that runs in CI.",
  "We measured it on the staging cluster with production-like data.",
  "This came up again during the incident review last quarter.",
  "The runbook in the wiki has the exact commands.",
  "Keep this in mind when touching the connection handling code.",
  "The old behaviour is still behind a feature flag for one release.",
  "Monitoring shows the error rate back to its baseline since the fix.",
  "Ask before changing the timeout values: other services depend on them.",
  "The same issue exists in the worker, which still uses the old client.",
  "Rolling back means reverting the migration and redeploying the previous image.",
  "Document any exception to this in the pull request description.",
  "The benchmark numbers are in the performance channel.",
  "Latency at the ninety-ninth percentile went down by a third.",
  "It only affects tenants created before the schema change.",
  "Local development uses the same configuration through docker compose.",
  "Prefer the typed client over raw queries for anything user facing.",
  "The cache key includes the tenant id and the API version.",
  "Batch size of five hundred was the sweet spot in our tests.",
];

const TYPE_WEIGHTS = { decision: 22, preference: 14, pattern: 16, "anti-pattern": 4, problem: 16, solution: 16, fact: 12 } as const;
type MemType = keyof typeof TYPE_WEIGHTS;

const RELATION_WEIGHTS: Record<RelationType, number> = {
  related: 40, supports: 14, causes: 8, contradicts: 4, consolidated_from: 0, split_from: 0, supersedes: 0,
  USES: 10, CHOSE_OVER: 4, REQUIRES: 8, ENABLES: 5, PREFERS: 3,
};

/** Two years of history ending at a fixed date, so the same seed gives byte-identical records. */
export const HISTORY_END = Date.UTC(2026, 10, 1) / 1000; // 2026-11-01T00:00:00Z
export const HISTORY_SPAN = 2 * 365 * 86400;

/** A UUIDv7 for a creation time (ms), its random bits from the seeded generator. */
export function uuidV7At(ms: number, rng: Rng): string {
  const ts = Math.floor(ms).toString(16).padStart(12, "0");
  const variant = (8 + rng.int(0, 3)).toString(16);
  return `${ts.slice(0, 8)}-${ts.slice(8, 12)}-7${rng.hex(3)}-${variant}${rng.hex(3)}-${rng.hex(12)}`;
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function wordCount(s: string): number {
  return s.split(/\s+/).filter(Boolean).length;
}

export interface GenMemory {
  id: string;
  createdMs: number;
  fields: JsonObject;
}

export interface GenRelation {
  id: string;
  from: string;
  to: string;
  type: RelationType;
  strength: number;
  created_at: number;
}

/**
 * The whole corpus for one store size, in creation order (oldest first), as a store that grew
 * over two years would have been written. Relations (about 0.3 per memory) point from a memory
 * to an earlier one, mostly of the same project.
 */
export class Corpus {
  private readonly rng: Rng;
  private readonly seen: { id: string; project: string | null }[] = [];
  private readonly relKeys = new Set<string>();
  private readonly times: number[];
  private i = 0;

  constructor(
    readonly size: number,
    seed: number,
  ) {
    this.rng = new Rng(seed ^ Math.imul(size, 2654435761));
    // creation times: uniform over two years, a little denser recently (stores grow with use)
    const start = (HISTORY_END - HISTORY_SPAN) * 1000;
    this.times = Array.from({ length: size }, () => start + Math.sqrt(this.rng.next()) * HISTORY_SPAN * 1000).sort((a, b) => a - b);
  }

  get done(): boolean {
    return this.i >= this.size;
  }

  /** The next memory and the relations it starts. */
  next(): { memory: GenMemory; relations: GenRelation[] } {
    const r = this.rng;
    const createdMs = Math.floor(this.times[this.i++]!);
    const created = Math.floor(createdMs / 1000);
    const id = uuidV7At(createdMs, r);
    const type = r.weighted(TYPE_WEIGHTS) as MemType;
    const project = r.chance(0.85) ? r.pick(PROJECTS) : null;
    const entities = r.some(ENTITIES, Number(r.weighted({ "0": 8, "1": 30, "2": 35, "3": 18, "4": 9 })));
    const e1 = entities[0] ?? r.pick(ENTITIES);
    const e2 = entities[1] ?? r.pick(ENTITIES);
    // length: 30 words to a few hundred, log-normal (median ~65 words)
    const target = Math.min(420, 30 + Math.floor(Math.exp(3.5 + 0.85 * r.normal())));
    const { text, decision } = this.text(type, e1, e2, entities, target);
    const tags = r.some(TAGS, r.int(1, 6));
    const lastUsed = created + Math.floor(r.next() ** 2 * (HISTORY_END - created));
    const useCount = Math.floor(r.next() ** 3 * 25);
    const fields: JsonObject = {
      content: text,
      gist: r.chance(0.3) ? text.split(". ")[0]!.slice(0, 140) : null,
      meta: {
        tags,
        source: r.pick(["claude-code session", "manual note", "code review", "incident review", null]),
        context: r.chance(0.4) ? `working on ${r.pick(AREAS)}` : null,
        extra: {},
      },
      created_at: created,
      last_used: lastUsed,
      updated_at: r.chance(0.2) ? created + Math.floor(r.next() * (lastUsed - created)) : created,
      use_count: useCount,
      strength: r.chance(0.8) ? 1 : Math.round((1 + r.next()) * 10) / 10,
      status: r.weighted({ active: 90, promoted: 4, archived: 6 }),
      entities,
      type,
      decision,
      confidence: r.chance(0.5) ? null : Math.round((0.5 + r.next() / 2) * 100) / 100,
      category: r.pick(CATEGORIES),
      importance: r.weighted({ low: 20, medium: 50, high: 25, critical: 5 }),
      project,
      scope: r.weighted({ team: 70, user: 15, local: 10, global: 5 }),
      captured_by: { user: r.pick(USERS), machine: r.pick(MACHINES), agent: r.pick(AGENTS), session: r.chance(0.5) ? r.hex(12) : null },
    };
    const relations: GenRelation[] = [];
    if (this.seen.length > 0) {
      const n = r.chance(0.27) ? (r.chance(0.1) ? 2 : 1) : 0;
      for (let k = 0; k < n; k++) {
        const sameProject = this.seen.slice(-300).filter((s) => s.project === project);
        const to = sameProject.length && r.chance(0.6) ? r.pick(sameProject).id : r.pick(this.seen).id;
        const type = r.weighted(RELATION_WEIGHTS);
        const key = `${id} ${to} ${type}`;
        if (this.relKeys.has(key)) continue;
        this.relKeys.add(key);
        relations.push({ id: uuidV7At(createdMs, r), from: id, to, type, strength: Math.round((0.3 + 0.7 * r.next()) * 100) / 100, created_at: created });
      }
    }
    this.seen.push({ id, project });
    return { memory: { id, createdMs, fields }, relations };
  }

  private text(type: MemType, e1: string, e2: string, entities: string[], target: number): { text: string; decision: JsonObject | null } {
    const r = this.rng;
    const s: string[] = [];
    let decision: JsonObject | null = null;
    switch (type) {
      case "decision": {
        const purpose = r.pick(PURPOSES);
        const reason = r.pick(REASONS);
        s.push(`We decided to use ${e1} instead of ${e2} for ${purpose} in ${r.pick(AREAS)} because ${reason}.`);
        if (r.chance(0.6)) decision = { what: `Use ${e1} for ${purpose}`, why: reason, alternatives: [e2], constraints: [], tradeoffs: r.chance(0.5) ? [`more moving parts than ${e2}`] : [] };
        break;
      }
      case "preference":
        s.push(`Prefer ${r.pick(PRACTICES)} over ad hoc conventions in ${r.pick(AREAS)}.`);
        break;
      case "pattern":
        s.push(`When ${r.pick(CONDITIONS)}, handle it in ${r.pick(AREAS)} by ${r.pick(FIXES)}.`);
        break;
      case "anti-pattern":
        s.push(`Do not share one ${e1} client between ${r.pick(AREAS)} and ${r.pick(AREAS)}: it ${r.pick(SYMPTOMS)}.`);
        break;
      case "problem":
        s.push(`${e1} in ${r.pick(AREAS)} ${r.pick(SYMPTOMS)} when ${r.pick(CONDITIONS)}.`);
        break;
      case "solution":
        s.push(`Fixed the ${e1} issue in ${r.pick(AREAS)} by ${r.pick(FIXES)}.`);
        break;
      case "fact":
        s.push(`${e1} ${r.pick(FACTS)}.`);
        break;
    }
    let words = wordCount(s[0]!);
    for (let tries = 0; words < target && tries < 200; tries++) {
      const k = r.int(0, 9);
      const e = entities.length ? r.pick(entities) : r.pick(ENTITIES);
      let next: string;
      if (k <= 3) next = r.pick(FILLER);
      else if (k === 4) next = `${cap(e)} ${r.pick(SYMPTOMS)} when ${r.pick(CONDITIONS)}.`;
      else if (k === 5) next = `The fix was ${r.pick(FIXES)}.`;
      else if (k === 6) next = `${cap(e)} ${r.pick(FACTS)}.`;
      else if (k === 7) next = `We chose this because ${r.pick(REASONS)}.`;
      else if (k === 8) next = `See also how ${r.pick(AREAS)} handles ${r.pick(PURPOSES)}.`;
      else next = `Prefer ${r.pick(PRACTICES)} here.`;
      if (s.includes(next)) continue; // no sentence twice in one memory
      s.push(next);
      words += wordCount(next);
    }
    if (r.chance(0.005)) s.splice(r.int(0, s.length), 0, `The ${r.pick(RARE_WORDS)} codename refers to this work.`);
    return { text: s.join(" "), decision };
  }
}
