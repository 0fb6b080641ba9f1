import { findMentions } from "./capture/entities.ts";
import { entryNamed } from "./capture/alias-index.ts";
import { type VocabEntry, vocabularyInCategories } from "./capture/vocabulary.ts";
import { type MemoryTerms, stem } from "./memory-terms.ts";
import { STOP_WORDS } from "./stop-words.ts";
import { THESAURUS_KINDS, THESAURUS_SYNONYMS } from "./dev-thesaurus.ts";
import { TRIGGER_GROUPS, TRIGGER_KEYS, TRIGGERS_FROM } from "./trigger-index.gen.ts";

// made in memory-terms.ts (the store keeps them per memory); named here too for recall's callers
export { type MemoryTerms, memoryTerms, stem, type StemSet } from "./memory-terms.ts";

// What a recall query is about beyond its literal words: the concepts memsync knows. A query that
// names a product ("postgres") stands for every name of it; one that names a kind of thing ("the
// db", "login", "which linter") stands for every product of that category in the vocabulary and
// the usual words for it; a common abbreviation ("PRs", "prod") for its long form. Memories are
// matched on these too, so "which database do we use" finds "We use PostgreSQL 16". Pure.

/** A thing the query speaks of, and the words and names a memory about it would hold. */
export interface Concept {
  /** What triggered it in the query (for the record: "db", "postgres"). */
  label: string;
  /** The query's words it stands for (those words count as found when the concept is). */
  from: string[];
  /** Phrases a memory may hold (lowercase words, space-separated). */
  terms: string[];
  /** Canonical entity names a memory may carry. */
  names: string[];
  /** A kind of thing ("the db", "which linter"), standing for the products of its categories. */
  kind?: true;
  /** From the developer thesaurus: held only through a phrase other than the query's own words (see linkedOnly). */
  linkOnly?: true;
  /** The terms' words as stems. */
  termStems: string[][];
}

/**
 * Words for a kind of thing, and the vocabulary categories whose products they stand for. The
 * words are matched in a query (whole words or phrases) and in memories.
 */
const OWN_KINDS: readonly { words: string[]; categories: string[] }[] = [
  { words: ["db", "dbs", "database", "databases", "datastore", "rdbms"], categories: ["database"] },
  {
    words: ["auth", "authentication", "authenticate", "identity provider", "idp", "user accounts", "login", "logins", "log in", "logged in", "sign in", "signed in", "signin", "sign on", "sso", "password", "passwords", "identity server", "identity service", "auth server", "auth service", "user directory"],
    categories: ["auth"],
  },
  { words: ["cache", "caches", "caching", "cached"], categories: ["cache", "caching"] },
  { words: ["payment provider", "payment providers", "payment processor", "payment processors", "payment gateway", "payments provider", "psp", "card processor"], categories: ["payments"] },
  { words: ["email provider", "email service", "mail provider", "mail service", "esp", "email delivery"], categories: ["email"] },
  { words: ["push provider", "push service", "push notifications", "push notification"], categories: ["push"] },
  { words: ["test framework", "testing framework", "test runner", "unit test", "unit tests"], categories: ["testing"] },
  { words: ["ci", "continuous integration", "build server", "pipeline", "pipelines"], categories: ["ci"] },
  { words: ["message broker", "message brokers", "broker", "message queue", "event bus", "pubsub", "event streaming"], categories: ["messaging"] },
  { words: ["background jobs", "job queue", "job runner", "task queue"], categories: ["jobs"] },
  { words: ["search engine", "full-text search", "full text search", "search backend"], categories: ["search"] },
  { words: ["monitoring", "metrics", "tracing", "logging", "error tracker", "error tracking", "apm", "observability", "telemetry"], categories: ["observability"] },
  { words: ["frontend", "front end", "ui framework"], categories: ["frontend"] },
  { words: ["css", "styling", "stylesheets"], categories: ["styling"] },
  { words: ["state management", "data fetching", "server state"], categories: ["state"] },
  { words: ["mobile", "ios", "android", "mobile app"], categories: ["mobile"] },
  { words: ["cloud", "cloud provider", "hosting provider"], categories: ["cloud"] },
  { words: ["infra", "container orchestration"], categories: ["infrastructure", "iac"] },
  // tools that provision resources from code, a kind of its own: "which iac tool" is not asking about Docker
  { words: ["iac", "infrastructure as code", "as code", "provisioning"], categories: ["iac"] },
  { words: ["package manager", "package managers", "lockfile"], categories: ["package-manager"] },
  { words: ["linter", "linters", "linting", "lint"], categories: ["lint"] },
  { words: ["orm", "orms", "query builder"], categories: ["orm"] },
  { words: ["llm", "llms", "language model", "ai model"], categories: ["ai"] },
  { words: ["embeddings", "embedding", "vector store", "vector database", "vector search"], categories: ["vector-db"] },
  { words: ["runtime", "js runtime", "javascript runtime"], categories: ["runtime"] },
  { words: ["bundler", "bundlers", "build tool"], categories: ["build"] },
];

/** Common abbreviations and synonyms of developer talk: a query word and what a memory may say instead. */
const OWN_SYNONYMS: readonly [string[], string[]][] = [
  [["pr", "prs"], ["pull request", "pull requests"]],
  [["prod"], ["production"]],
  [["repo", "repos"], ["repository", "repositories"]],
  [["env", "envs"], ["environment", "environments"]],
  [["config", "configs"], ["configuration"]],
  [["creds", "credentials"], ["secrets", "credentials"]],
  [["toggle", "toggles"], ["feature flag", "feature flags", "flags"]],
  [["undo", "revert"], ["rollback", "roll back", "rolled back", "revert"]],
  [["translate", "translation", "localize", "localization", "l10n", "i18n", "internationalization", "internationalisation"], ["i18n", "i18next", "translations", "locale"]],
  [["xss"], ["content-security-policy", "csp"]],
  [["perf"], ["performance"]],
  [["deps"], ["dependencies", "dependency"]],
  [["docs"], ["documentation"]],
  [["gql"], ["graphql"]],
  [["2fa", "mfa", "two factor"], ["multi-factor", "two-factor", "mfa", "totp"]],
  [["page through", "paging", "paginate"], ["pagination"]],
  [["stored", "storing", "storage", "persisted", "persistence", "saved"], ["stored", "storage", "persisted", "persistence"]],
  // general developer vocabulary: the same thing in other words (branch quality)
  [["rollout", "rollouts", "progressive delivery", "gradual rollout", "staged rollout"], ["canary", "rollout", "staged rollout"]],
  [["canary", "canaries"], ["canary", "rollout", "staged rollout"]],
  [["languages", "multilingual", "locales"], ["i18n", "translations", "locale"]],
  [["alert", "alerts", "alerting", "pager", "paging", "paged", "gets paged", "get paged", "gets called", "get called", "woken up", "wake up", "wakes up", "wake someone", "on-call", "oncall", "on call"], ["alerts", "on-call"]],
  [["compute", "computed", "computes", "calculate", "calculated", "calculates", "calculation"], ["computed", "calculated", "calculation"]],
  [["newsletter", "newsletters", "marketing email", "marketing emails", "email campaigns"], ["marketing email", "mailchimp", "newsletter"]],
  [["recurring", "periodic", "repeating", "scheduler", "schedulers"], ["repeatable", "cron", "schedule", "scheduled"]],
  [["cron", "crons", "cronjob", "cronjobs"], ["cron", "repeatable", "schedule"]],
  [["email", "emails", "e-mail", "mail"], ["email", "mail"]],
  [["sms", "text message"], ["sms"]],
  [["second factor", "two-step", "otp", "one-time code"], ["multi-factor", "two-factor", "mfa", "totp"]],
  [["session", "sessions", "logged in", "login state"], ["session", "sessions", "cookie", "cookies"]],
  [["cookie", "cookies"], ["cookie", "cookies", "session"]],
  [["jwt", "jwts", "bearer token", "access token"], ["jwt", "token", "tokens"]],
  [["lockout", "locked out", "brute force", "credential stuffing", "wrong password", "wrong passwords", "too many attempts", "failed attempts", "failed logins"], ["locked", "lockout", "rate limited", "failed sign-in"]],
  [["permissions", "authorization", "authorisation", "access control", "acl"], ["permissions", "rbac", "roles", "role-based"]],
  [["roles", "rbac"], ["roles", "role-based", "permissions"]],
  [["sso", "single sign-on", "single sign on", "saml"], ["sso", "saml", "single sign-on"]],
  [["ttl", "expiry", "expiration", "expire", "expires", "lifetime", "valid for"], ["expire", "expires", "ttl", "valid"]],
  [["mock", "mocks", "mocking", "stub", "stubs", "stubbing", "fake", "fakes"], ["mock", "mocks", "fixtures"]],
  [["e2e", "end-to-end", "end to end", "browser test", "browser tests", "ui test", "ui tests", "e2e test", "e2e tests"], ["end-to-end", "playwright", "e2e"]],
  [["coverage", "code coverage", "test coverage"], ["coverage"]],
  [["flaky", "flakiness", "intermittent", "intermittently"], ["flaky", "stable", "intermittent"]],
  [["snapshot", "snapshots", "snapshot tests"], ["snapshot", "snapshots"]],
  [["property-based", "property based", "property tests", "fuzzing", "fuzz"], ["property-based", "fast-check"]],
  [["approval", "approvals", "approve", "approved", "sign-off"], ["approval", "approving", "review"]],
  [["merge", "merged", "merging", "squash"], ["merge", "merged", "squash-merged"]],
  [["branching", "branches", "feature branches", "long-lived", "long lived"], ["branches", "trunk-based", "short-lived"]],
  [["commit message", "commit messages", "commit style"], ["commit messages", "conventional commits"]],
  [["formatter", "formatting", "code format", "code style", "print width", "line length"], ["formatting", "prettier", "print width"]],
  [["strict", "strictness", "type safety", "typing", "as any", "any type", "untyped", "ts-ignore", "ts ignore", "type checker"], ["strict mode", "typescript", "any"]],
  [["container", "containers", "image", "images", "dockerfile", "base image"], ["docker", "image", "images", "dockerfile"]],
  [["helm", "chart", "charts", "manifests"], ["helm", "charts", "kubernetes"]],
  [["region", "regions", "zone", "zones", "availability zone"], ["region", "eu-west-1", "eu-central-1", "availability zones"]],
  [["backup", "backups", "restore", "restores", "disaster recovery"], ["backup", "backups", "restore", "pg_dump"]],
  [["secrets", "secret", "api keys", "env vars", "environment variables", ".env", "env files"], ["secrets", "secrets manager", ".env", "env"]],
  [["bill", "billing cost", "cost", "costs", "spend", "spending", "expensive", "charges"], ["bill", "cost", "charges", "dollars"]],
  [["price", "prices", "pricing", "plan", "plans", "subscription"], ["plan", "pricing", "price", "dollars"]],
  [["currency", "currencies", "usd", "eur", "gbp", "yen", "jpy", "foreign currency", "local currency", "exchange rate", "exchange rates"], ["currency", "usd", "eur", "gbp"]],
  [["money", "amount", "amounts", "cents", "float", "floats", "floating point", "decimal"], ["money", "amounts", "cents", "floats"]],
  [["refund", "refunds", "chargeback"], ["refund", "refunds"]],
  [["tax", "taxes", "vat", "sales tax"], ["tax", "stripe tax"]],
  [["offline", "no connection", "no network", "connectivity", "network connection", "no internet", "without internet", "lost connection", "airplane mode", "flight mode", "on a plane", "no signal", "spotty connection", "bad connection"], ["offline", "connection returns", "queues writes"]],
  [["app store", "play store", "google play", "mobile release", "mobile releases"], ["app store", "google play", "mobile releases"]],
  [["typo", "typos", "misspelling", "misspellings", "misspelled", "spelling", "spelling mistake", "spelling mistakes", "fuzzy"], ["typo", "fuzziness"]],
  [["synonym", "synonyms", "thesaurus", "mean the same", "same meaning", "equivalent terms"], ["synonyms"]],
  // what a cache's TTL and a deletion request are called in other words (branch recall26)
  [["stale", "staleness", "out of date", "outdated", "freshness"], ["expire", "expires", "ttl", "purged", "invalidated"]],
  [["erase", "erased", "erasure", "right to be forgotten", "forget me", "data deletion", "delete my data", "delete their data"], ["deletion", "deleted", "removed", "gdpr"]],
  [["logging library", "logger", "loggers", "structured logging"], ["pino", "log", "logs", "logger"]],
  [["retention", "retained", "retain", "kept for"], ["kept", "retention", "days"]],
  [["analytics", "product analytics", "tracking", "event data", "product telemetry", "usage data", "usage events", "usage tracking"], ["analytics", "posthog", "events"]],
  [["idempotent", "idempotency", "exactly once", "dedupe", "deduplicate", "deduplication", "charged twice", "double charge", "double charged", "duplicate charge", "duplicate charges", "double submit", "resent"], ["idempotent", "idempotency", "duplicate"]],
  [["retry", "retries", "retried", "retrying", "backoff"], ["retry", "retried", "backoff", "jitter"]],
  [["versioning", "api version", "api versions", "deprecation", "deprecated"], ["versioned", "version", "supported"]],
  [["openapi", "swagger", "api spec", "api schema"], ["openapi", "spec"]],
  [["cursor", "cursors", "offset", "pagination", "next page", "next-page", "page token", "continuation token"], ["cursor", "pagination", "offset"]],
  [["parse", "parseable", "parsing", "opaque"], ["parse", "opaque"]],
  [["xss", "cross-site scripting", "inline script", "inline scripts", "csp"], ["content-security-policy", "csp", "inline scripts"]],
  [["ssrf", "internal addresses", "private ips", "private addresses"], ["ssrf", "private address"]],
  [["lcp", "core web vitals", "page load", "load time", "page speed"], ["largest contentful paint", "lcp", "page weight"]],
  [["review", "reviews", "code review", "reviewer", "reviewers"], ["review", "reviews", "reviewers"]],
  // short forms of the trade and their long forms, and a few everyday equivalents (branch
  // quality4: written as a list of developer usage, not from recall's misses)
  [["cert", "certs"], ["certificate", "certificates"]],
  [["app", "apps"], ["application", "applications", "app", "apps"]],
  [["admin", "admins"], ["administrator", "administrators", "admin", "admins"]],
  [["msg", "msgs"], ["message", "messages"]],
  [["img", "imgs"], ["image", "images"]],
  [["pkg", "pkgs"], ["package", "packages"]],
  [["lib", "libs"], ["library", "libraries"]],
  [["fn", "func", "funcs"], ["function", "functions"]],
  [["param", "params"], ["parameter", "parameters"]],
  [["arg", "args"], ["argument", "arguments"]],
  [["impl"], ["implementation"]],
  [["perms", "authz"], ["permissions", "authorization"]],
  [["authn"], ["authentication"]],
  [["org", "orgs"], ["organization", "organizations", "organisation"]],
  [["txn", "txns"], ["transaction", "transactions"]],
  [["req", "reqs"], ["request", "requests"]],
  [["resp"], ["response", "responses"]],
  [["err", "errs"], ["error", "errors"]],
  [["tz", "timezone", "timezones", "time zone"], ["timezone", "time zone", "utc"]],
  [["dep"], ["dependency", "dependencies"]],
  [["stg"], ["staging"]],
  [["vm", "vms"], ["virtual machine", "virtual machines"]],
  [["regex", "regexes", "regexp", "regexps"], ["regular expression", "regular expressions", "regex"]],
  [["a11y", "accessibility", "accessible", "screen reader", "screen readers", "keyboard navigation", "color contrast", "contrast", "wcag"], ["accessibility", "accessible", "keyboard", "color"]],
  [["eng"], ["engineering", "engineer", "engineers"]],
  [["mgmt"], ["management", "managed"]],
  [["async"], ["asynchronous"]],
  [["id", "ids", "identifier", "identifiers"], ["id", "ids", "identifier", "identifiers", "uuid", "uuids", "primary key", "primary keys"]],
  [["erase", "erasure", "wipe", "wiped", "purge", "purged", "delete", "deleted", "deletion"], ["delete", "deleted", "deletion", "removed", "erased", "purged", "wiped"]],
  [["outage", "outages", "downtime", "site is down", "site down", "is down"], ["outage", "downtime", "incident", "goes down", "went down"]],
  [["ship", "ships", "shipped", "shipping"], ["deploy", "deploys", "release", "releases", "ship", "ships"]],
  [["bot", "bots", "chatbot", "chatbots", "assistant", "assistants"], ["assistant", "bot", "chatbot"]],
  [["quota", "quotas", "throttle", "throttled", "throttling", "rate limit", "rate limits"], ["rate limit", "rate limited", "limit", "quota", "throttled"]],
  [["spam", "junk"], ["spam", "junk"]],
  [["avatar", "avatars", "profile picture", "profile pictures", "profile photo", "profile photos", "profile image"], ["profile pictures", "profile picture", "avatar", "avatars"]],
  [["pentest", "pentests", "pen test", "pen tests", "penetration test", "penetration tests", "pentesting"], ["penetration test", "pentest", "pen test"]],
  [["internet", "publicly", "public-facing", "internet-facing", "exposed"], ["public", "exposed", "internet"]],
  [["panel", "console", "backoffice", "back office", "back-office"], ["admin tool", "admin", "dashboard", "panel", "console"]],
  [["laptop", "laptops", "locally", "my machine", "local machine"], ["local", "locally", "laptop", "local development"]],
  [["signup", "signups", "sign up", "sign-up", "register", "registration", "onboarding"], ["sign-up", "signup", "sign up", "registration"]],
  [["logout", "log out", "sign out", "signed out", "logged out"], ["logged out", "log out", "session", "sessions"]],
  [["wiki", "knowledge base"], ["notion", "confluence", "docs", "wiki"]],
  [["ticket", "tickets", "issue tracker", "bug tracker"], ["tickets", "jira", "linear", "zendesk"]],
  [["vulnerability", "vulnerabilities", "cve", "cves", "security patch", "security patches"], ["security updates", "vulnerability", "dependabot", "cve"]],
  [["upgrade", "upgrades", "upgrading", "bump", "bumps", "bumping"], ["upgrade", "upgraded", "bump", "version"]],
  [["crash report", "crash reports", "crash reporting", "exception tracking"], ["sentry", "exceptions", "crash reports"]],
  [["cdn", "edge", "edge cache"], ["cloudfront", "cdn", "edge"]],
  [["bucket", "buckets", "object storage", "blob storage", "blobs"], ["s3", "bucket", "object storage"]],
  [["firewall", "waf", "bot protection", "bad bots", "scraper", "scrapers", "scraping", "crawler", "crawlers", "ddos", "abusive traffic"], ["waf", "firewall", "bots"]],
  [["healthcheck", "healthchecks", "health check", "health checks", "uptime", "ping"], ["healthz", "uptime", "health"]],
  [["encrypt", "encrypted", "encryption", "hash", "hashed", "hashing"], ["hashed", "encrypted", "sha-256", "bcrypt", "encryption"]],
  [["rotate", "rotated", "rotation", "rotating"], ["rotate", "rotated", "rotation"]],
  [["realtime", "real-time", "real time", "live updates", "push updates"], ["server-sent events", "websockets", "live", "realtime"]],
  [["microservice", "microservices", "service-to-service", "internal calls", "inter-service", "between services", "backend services", "internal api", "internal apis", "service calls"], ["internal service calls", "grpc", "services"]],
  [["startup", "boot", "boots", "launch", "on launch", "cold start", "cold starts"], ["startup", "on startup", "launch", "boot", "cold start"]],
  [["memory leak", "memory leaks", "leak", "leaks", "leaking"], ["leaked memory", "leak", "leaks", "leaked"]],
  [["evict", "evicts", "evicted", "eviction", "evictions", "threw away", "thrown away", "throws away", "discarded"], ["evicted", "evict", "eviction", "maxmemory"]],
  [["clean up", "cleaned up", "cleanup", "prune", "pruned", "pruning"], ["removal", "removed", "cleanup", "older than"]],
  [["christmas", "holidays", "holiday season", "new year", "year end", "end of year"], ["december", "january", "freeze", "holiday"]],
  [["scope", "scopes", "oauth scopes", "oauth permissions"], ["scopes", "scope"]],
  [["checks", "status checks", "required checks", "ci checks"], ["lint", "typecheck", "required"]],
  [["kept out", "keep out", "scrub", "scrubbed", "scrubbing", "mask", "masked", "masking", "redact", "redacted", "redaction"], ["redacts", "redact", "redacted", "redaction"]],
  [["bi", "business intelligence", "analysts", "reporting"], ["reporting", "warehouse", "bigquery", "dashboards"]],
  [["large files", "big files", "binaries", "binary files", "assets"], ["git lfs", "large files", "design files"]],
  // more of the trade's words for the same thing (branch quality6: a list of usage, checked on tune6)
  [["uuid", "uuids", "guid", "guids", "ulid", "ulids"], ["uuid", "uuidv7", "uuidv4", "primary keys"]],
  [["practise", "practice", "practised", "practiced", "drill", "drills", "rehearse", "rehearsal", "fire drill"], ["rehearsed", "rehearsal", "drill"]],
  [["split tests", "parallel tests", "parallelize", "parallelise", "parallelized", "shard", "shards", "sharding", "sharded", "test splitting"], ["sharding", "shards", "parallel", "runners"]],
  [["schema change", "schema changes", "ddl", "alter table", "migrate the schema"], ["migration", "migrations", "schema migrations"]],
  [["thundering herd", "dogpile", "dog-pile", "cache stampede", "stampede"], ["stampede", "at once", "coalescing"]],
  [["poison message", "poison messages", "poison pill", "poison pills", "undeliverable", "failed messages", "dead letter", "dead letters"], ["dead-letter", "dead-letter queue", "fail five times"]],
  [["error tracking", "error tracker", "error reporting", "exception reporting", "exceptions"], ["sentry", "exceptions", "reported"]],
  // more of the trade's words for one thing (branch recall27: a list of usage, checked on tune27)
  [["personal data", "personal information", "pii", "personally identifiable", "sensitive data", "user data"], ["pii", "personal data", "emails", "phone", "redacts", "redact"]],
  [["changelog", "changelogs", "change log", "release notes", "what's new"], ["release notes", "changelog"]],
  [["standup", "standups", "stand-up", "daily meeting", "daily sync", "daily scrum", "status meeting"], ["standup", "stand-up"]],
  [["callback url", "callback urls", "webhook", "webhooks", "http callbacks", "event notifications"], ["webhooks", "webhook"]],
  [["dependency install", "install dependencies", "installing dependencies", "npm install", "pnpm install", "yarn install", "node modules", "node_modules"], ["pnpm store", "lockfile", "dependencies"]],
  [["status page", "status site", "outage notice", "service status"], ["status page", "statuspage"]],
  [["connection pool", "connection pooling", "pooler", "too many connections", "too many clients", "max connections", "connection limit", "out of connections"], ["pgbouncer", "pool", "connections"]],
  [["n plus one", "query per row", "too many queries"], ["n+1", "one query per", "joined query"]],
  [["oom", "oomkilled", "oom killed", "out of memory", "ran out of memory", "heap limit", "heap size"], ["oom", "oomkilled", "out of memory", "memory limit", "max-old-space-size"]],
  [["deliverability", "spam folder", "junk folder", "sender reputation", "bounced emails", "email bounces", "hard bounces"], ["bounces", "spam", "dkim", "suppressed", "sender reputation"]],
  [["consumer lag", "falling behind", "fell behind", "backpressure"], ["consumer lag", "lag", "behind"]],
  [["table lock", "locked table", "lock contention", "blocked writes", "writes blocked", "writes stalled"], ["locked", "concurrently", "lock"]],
  [["413", "payload too large", "entity too large", "file size limit", "upload limit", "signed url", "presigned", "direct upload"], ["body size limit", "presigned", "uploads", "large files"]],
  [["garbled", "mojibake", "character encoding", "byte order mark"], ["utf-8", "byte order mark", "accents"]],
  [["geospatial", "geolocation", "lat long", "latitude", "longitude"], ["postgis", "distances", "geo"]],
  [["audit trail", "audit log", "change history", "who changed"], ["audit log", "who, what and when"]],
  [["permalink", "permalinks", "pretty url", "pretty urls", "url slug", "url slugs"], ["slugs", "urls", "links"]],
  [["postmortem", "postmortems", "post-mortem", "post mortem", "retrospective", "incident review", "root cause"], ["postmortem", "blameless", "incident"]],
  [["adr", "adrs", "design doc", "design docs", "architecture decision", "architecture decisions"], ["adrs", "architecture decisions", "docs/adr"]],
  [["feature request", "feature requests", "wishlist", "wish list"], ["roadmap", "feature requests"]],
  [["handoff", "hand-off", "mockup", "mockups"], ["figma", "design review", "handoff"]],
  [["test account", "test accounts", "demo account", "demo accounts"], ["sandbox accounts", "sandbox"]],
  [["rag", "retrieval augmented", "semantic search", "knowledge base search"], ["retrieval", "embedded", "pgvector"]],
  [["evals", "evaluation set", "eval set", "golden set"], ["eval set", "eval"]],
  [["content moderation", "ugc", "user generated", "user-generated"], ["moderation", "user-generated"]],
  [["bundle size", "js bundle", "javascript bundle", "code splitting", "code-splitting", "lazy load", "lazy loading", "tree shaking"], ["bundle", "lazy-loading", "lazy loading"]],
];

// the developer thesaurus (core/dev-thesaurus.ts) after this file's own tables: the same meaning
const KINDS = [...OWN_KINDS, ...THESAURUS_KINDS];
const SYNONYMS = [...OWN_SYNONYMS, ...THESAURUS_SYNONYMS];

/** What a trigger word stands for: its terms and names are made on first use (most kinds are never asked about). */
type Trigger = { label: string; make: () => { terms: string[]; names: string[] }; linkOnly?: true };


/** Lowercase ASCII words and digits, one space apart: tokens(p).join(" ") is p itself. */
const PLAIN_KEY = /^[a-z0-9]+(?: [a-z0-9]+)*$/;

/** Lowercase words of a phrase (letters and digits, as the index splits them), space-joined. */
function key(phrase: string): string {
  // most of the tables' ~1,500 phrases are already so: no normalizing, lowering nor splitting
  // (the trigger table and the entries' terms are made on each cold start, before any JIT)
  return PLAIN_KEY.test(phrase) ? phrase : tokens(phrase).join(" ");
}

function tokens(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The phrases of a vocabulary entry a memory may hold. A name that is also an English word
 * (flagged in the vocabulary: "Neon", "Oracle", "REST") is left out: found in a memory's text it
 * may mean the word; a memory about the product carries it as an entity.
 */
function entryTerms(e: VocabEntry): string[] {
  return [e.name.replace(/-/g, " "), ...e.aliases.filter((a) => !a.needsCapital && !a.upper && !a.verbLike && !a.versionOnly).map((a) => a.text)].map(key).filter(Boolean);
}

/**
 * The trigger words' keys, one a line: each group's (the kinds, then the synonyms, in order) after
 * the one before, and where each group's lines start. A phrase's triggers are found by a native
 * search of this text: a Map of every key (~750) cost each cold hook ~0.5 ms to build, for the
 * ~45 phrases of one prompt. Only a line that is not already a key is made one (key()).
 */
let wordLines: { text: string; starts: number[] } | undefined;
/** A line PLAIN_KEY would refuse (so key() changes it, or it has no words). */
const ODD_LINE = /^(?![a-z0-9]+(?: [a-z0-9]+)*$)[^\n]*$/gm;
const made: Trigger[] = [];

/** Whether group g is one of the developer thesaurus's (they come after this file's own, in each table). */
function fromThesaurus(g: number): boolean {
  return g < KINDS.length ? g >= OWN_KINDS.length : g - KINDS.length >= OWN_SYNONYMS.length;
}

function groupWords(g: number): readonly string[] {
  return g < KINDS.length ? KINDS[g]!.words : SYNONYMS[g - KINDS.length]![0];
}

function lines(): { text: string; starts: number[] } {
  if (wordLines) return wordLines;
  const starts: number[] = [];
  let text = "\n";
  for (let g = 0; g < KINDS.length + SYNONYMS.length; g++) {
    starts.push(text.length);
    text += `${groupWords(g).join("\n").replace(ODD_LINE, (line) => key(line))}\n`;
  }
  return (wordLines = { text, starts });
}

/** The trigger of group g (a kind, or a synonym list), made when first found. */
function triggerAt(g: number): Trigger {
  const had = made[g];
  if (had) return had;
  let t: Trigger;
  if (g < KINDS.length) {
    const kind = KINDS[g]!;
    // a kind stands for its products by their canonical names (a memory captured about one
    // carries it as an entity): every alias of thirty databases made the search itself slow
    t = {
      label: kind.words[0]!,
      make: once(() => {
        const entries = vocabularyInCategories(kind.categories);
        return { terms: [...new Set([...kind.words, ...entries.map((e) => e.name.replace(/-/g, " "))].map(key).filter(Boolean))], names: entries.map((e) => e.name) };
      }),
    };
  } else {
    const [words, means] = SYNONYMS[g - KINDS.length]!;
    t = { label: words[0]!, make: once(() => ({ terms: [...new Set([...words, ...means].map(key))], names: [] })) };
  }
  if (fromThesaurus(g)) t.linkOnly = true;
  return (made[g] = t);
}

/**
 * The trigger tables as written: each group's words one a line, a blank line after each group.
 * What the prebuilt index (trigger-index.gen.ts) was made from; only joins, no key() of any word.
 */
export function triggerSource(): string {
  let text = "";
  for (let g = 0; g < KINDS.length + SYNONYMS.length; g++) text += `${groupWords(g).join("\n")}\n\n`;
  return text;
}

/**
 * Every trigger key, sorted, each with the groups it is a word of (once per such word, in the
 * groups' order, as the search of lines() finds them): what scripts/gen-trigger-index.ts writes.
 */
export function triggerIndexRows(): [string, number[]][] {
  const { text, starts } = lines();
  const rows = new Map<string, number[]>();
  let g = 0;
  let at = 1;
  for (const line of text.slice(1, -1).split("\n")) {
    while (g + 1 < starts.length && starts[g + 1]! <= at) g++;
    if (line) rows.set(line, [...(rows.get(line) ?? []), g]);
    at += line.length + 1;
  }
  return [...rows].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The prebuilt keys and their groups, when made from the tables as they are now (a table edited
 * since the last build is searched in lines() as before: slower, never a different answer). A
 * native search of lines() per phrase cost ~7-26 µs in a cold process, so a long prompt's ~900
 * phrases took ~6 ms; lines() itself ~0.2 ms of every hook.
 */
let prebuilt: TriggerIndex | null | undefined;

/** Sorted trigger keys, and line by line the groups of each (space-separated). */
export interface TriggerIndex {
  keys: readonly string[];
  groups: readonly string[];
}

/** The prebuilt index, when `from` (what it was made from) is `source` (the tables now); else null. */
export function triggerIndexFor(source: string, from: string, keys: string, groups: string): TriggerIndex | null {
  return source === from ? { keys: keys.split("\n"), groups: groups.split("\n") } : null;
}

function prebuiltIndex(): TriggerIndex | null {
  if (prebuilt === undefined) prebuilt = triggerIndexFor(triggerSource(), TRIGGERS_FROM, TRIGGER_KEYS, TRIGGER_GROUPS);
  return prebuilt;
}

/** Where a key is in the sorted keys, -1 when it is none. */
function keyAt(keys: readonly string[], phrase: string): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const k = keys[mid]!;
    if (k === phrase) return mid;
    if (k < phrase) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The triggers a phrase (a key) is a word of, once per such word, in the groups' order; undefined: none. */
export function triggersOf(phrase: string): Trigger[] | undefined {
  if (!phrase) return undefined;
  const ix = prebuiltIndex();
  if (ix) {
    const at = keyAt(ix.keys, phrase);
    return at < 0 ? undefined : ix.groups[at]!.split(" ").map((g) => triggerAt(Number(g)));
  }
  return searchedTriggers(phrase);
}

/** triggersOf by a search of lines(): the tables as they are, whatever the prebuilt index holds. */
export function searchedTriggers(phrase: string): Trigger[] | undefined {
  if (!phrase) return undefined;
  const { text, starts } = lines();
  const needle = `\n${phrase}\n`;
  let out: Trigger[] | undefined;
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
    let g = 0;
    while (g + 1 < starts.length && starts[g + 1]! <= i + 1) g++;
    (out ??= []).push(triggerAt(g));
  }
  return out;
}

export { key as triggerKey };

/** The labels of a phrase's triggers, as queryConcepts finds them (for tests). */
export function triggerLabels(phrase: string): string[] {
  return (triggersOf(phrase) ?? []).map((t) => t.label);
}

/** Every trigger word with its trigger's label, in the groups' order (for tests). */
export function triggerWords(): [string, string][] {
  const out: [string, string][] = [];
  for (let g = 0; g < KINDS.length + SYNONYMS.length; g++) for (const w of groupWords(g)) out.push([w, groupWords(g)[0]!]);
  return out;
}

function once<T>(fn: () => T): () => T {
  let v: T | undefined;
  return () => (v ??= fn());
}

/** Longest phrase a trigger has, in words. */
const MAX_TRIGGER_WORDS = 3;

/** The concepts a query speaks of: products it names (vocabulary aliases), kinds of things, abbreviations. */
export function queryConcepts(query: string): Concept[] {
  const out = new Map<string, Concept>();
  for (const m of findMentions(query)) {
    if (m.kind === "term") continue;
    const entry = entryNamed(m.name);
    if (!entry) continue;
    const from = tokens(query.slice(m.start, m.end));
    out.set(`entity:${entry.name}`, concept(entry.name, from, [...new Set(entryTerms(entry))], [entry.name]));
  }
  const us = tokens(query);
  for (let i = 0; i < us.length; i++) {
    for (let n = Math.min(MAX_TRIGGER_WORDS, us.length - i); n >= 1; n--) {
      const phrase = us.slice(i, i + n).join(" ");
      const hits = triggersOf(phrase);
      if (!hits) continue;
      let own = false;
      for (const t of hits) {
        // the thesaurus's groups apart from this file's own (one may start with the same word)
        const id = `${t.linkOnly ? "link" : "kind"}:${t.label}`;
        const c = out.get(id);
        if (c) c.from.push(...us.slice(i, i + n));
        else {
          const { terms, names } = t.make();
          out.set(id, { ...concept(t.label, us.slice(i, i + n), terms, names), ...(names.length ? { kind: true as const } : {}), ...(t.linkOnly ? { linkOnly: true as const } : {}) });
        }
        if (!t.linkOnly) own = true;
      }
      // a phrase only the thesaurus knows takes no word from this file's own triggers: shorter
      // phrases at the same place are looked for too ("analytics database" is a kind of the
      // thesaurus, and "database" still the db: the thesaurus adds concepts, never takes one away)
      if (!own) continue;
      i += n - 1;
      break;
    }
  }
  return [...out.values()].map(linkedOnly);
}

/**
 * A thesaurus concept without the phrases the query itself said: it links the query to a memory
 * through another word ("sluggish" to "latency"), while a memory holding the query's own word is a
 * plain word match, held to the word floor. Else every everyday trigger ("slow", "twice") would
 * make its word a concept, which carries a match alone: "profile a slow Go handler" found the
 * memories that say "slow".
 */
function linkedOnly(c: Concept): Concept {
  if (!c.linkOnly) return c;
  const said = new Set(c.from.map(stem));
  return { ...c, termStems: c.termStems.filter((words) => !words.every((w) => said.has(w))) };
}

function concept(label: string, from: string[], terms: string[], names: string[]): Concept {
  // a phrase's stop words are not in a memory's stems ("on call" is held as "call"): matched without them
  return { label, from, terms, names, termStems: terms.map((t) => phraseWords(t).map(stem)) };
}

function phraseWords(phrase: string): string[] {
  const all = phrase.split(" ");
  const kept = all.filter((w) => !STOP_WORDS.has(w));
  return kept.length ? kept : all;
}

/** Derivational endings the porter stemmer keeps ("parseable", "scheduler", "retention"), longest first. */
const DERIVED = /(?:abilities|ability|ibility|ations|ation|ments|ment|able|ible|ness|ures|ure|ers|er|ors|or|ity|ize|ise|ized|ised|izes|ises|ful|less)$/;

/**
 * The stem of a word's base, when it carries a derivational ending and enough is left (4+
 * letters): "parseable" -> "pars" (as "parse"), "retention" -> "retent"... null when there is none.
 */
export function baseStem(word: string): string | null {
  const m = DERIVED.exec(word);
  if (!m || word.length - m[0].length < 4) return null;
  const b = stem(word.slice(0, word.length - m[0].length));
  return b === stem(word) ? null : b;
}

/** A word without its derivational ending ("parseable" -> "parse"), for the index to look for. */
export function baseWord(word: string): string {
  const m = DERIVED.exec(word);
  return m ? word.slice(0, word.length - m[0].length) : word;
}

/**
 * Irregular verbs, each form with the others, looked up by a word or its stem ("eating": "ate"): porter stems "kept" and "keep"
 * apart ("how long do we keep dumps" / "backups are kept for 30 days").
 */
const IRREGULAR_GROUPS =
  "keep keeps kept|run runs ran|write writes wrote written|build builds built|send sends sent|hold holds held|choose chooses chose chosen|" +
  "break breaks broke broken|take takes took taken|make makes made|pay pays paid|find finds found|lose loses lost|begin begins began begun|" +
  "drive drives drove driven|get gets got gotten|go goes went gone|give gives gave given|know knows knew known|see sees saw seen|" +
  "buy buys bought|bring brings brought|teach teaches taught|think thinks thought|catch catches caught|throw throws threw thrown|" +
  "freeze freezes froze frozen|hide hides hid hidden|ship ships shipped|fall falls fell fallen|leave leaves left|spend spends spent|" +
  "split splits|set sets|put puts|cut cuts|hit hits|shut shuts|rise rises rose risen|grow grows grew grown|draw draws drew drawn|" +
  // the rest of everyday English's common irregular verbs (a grammar's list, no domain's): a
  // household or health note says "ate", "wore", "fed" as a developer's says "kept" (branch
  // recalldomain34). Left out: forms that are also a common noun or another verb's form (lead/led,
  // lie/lay, wind/wound, grind/ground, sink/sank, bear/bore, bite/bit, stick/stuck, mean, light, deal, win/won't;
  // saw is see's)
  "eat eats ate eaten|drink drinks drank drunk|feed feeds fed|sleep sleeps slept|wear wears wore worn|tear tears tore torn|" +
  "swim swims swam swum|ride rides rode ridden|fly flies flew flown|sit sits sat|stand stands stood|understand understands understood|" +
  "sell sells sold|tell tells told|say says said|speak speaks spoke spoken|steal steals stole stolen|fight fights fought|" +
  "forget forgets forgot forgotten|hang hangs hung|hear hears heard|meet meets met|feel feels felt|" +
  "shake shakes shook shaken|shoot shoots shot|sing sings sang sung|slide slides slid|spin spins spun|strike strikes struck|" +
  "swing swings swung|wake wakes woke woken|bend bends bent|bleed bleeds bled|blow blows blew blown|" +
  "dig digs dug|flee flees fled|lend lends lent|seek seeks sought|sweep sweeps swept|shrink shrinks shrank shrunk|" +
  "sting stings stung|swell swells swelled swollen|withdraw withdraws withdrew withdrawn|become becomes became|creep creeps crept|" +
  "leap leaps leapt|burn burns burnt|spill spills spilt|weep weeps wept|kneel kneels knelt";
let irregular: Map<string, string[]> | undefined;

/** The other forms of an irregular verb ("kept" -> keep, keeps), none for any other word. */
export function irregularForms(word: string): readonly string[] {
  if (!irregular) {
    irregular = new Map();
    for (const g of IRREGULAR_GROUPS.split("|")) {
      const forms = g.split(" ");
      for (const f of forms) irregular.set(f, forms.filter((x) => x !== f));
    }
  }
  // an -ing form ("eating", "throwing") by its stem; not a plural ("settings", "findings" are nouns)
  return irregular.get(word) ?? (word.endsWith("ing") ? irregular.get(stem(word)) : undefined) ?? [];
}

/** Whether a memory is about a concept: it carries one of its entities or holds one of its phrases. */
export function holdsConcept(m: MemoryTerms, c: Concept): boolean {
  for (const n of c.names) if (m.entities.has(n)) return true;
  // a phrase's words, by stem (in any order: a cheap stand-in for the phrase)
  return c.termStems.some((words) => words.every((w) => m.stems.has(w)));
}
