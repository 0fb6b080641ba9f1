// Secrets never reach a record file. Every write path goes through createMemory / updateMemory /
// createRelation (core/records.ts), which run cleanRecord over every string of the record: a
// <private>...</private> span is removed outright, and anything that looks like a credential is
// replaced by a marker naming its kind, e.g. [REDACTED:github-token].
//
// Every pattern here is linear: each starts at a literal or a word boundary, and every run of
// characters either cannot contain what follows it or is bounded, so a 50,000-character
// adversarial text costs milliseconds (tests/core/redact.test.ts).

export const MARK_PREFIX = "[REDACTED:";
const mark = (kind: string) => `${MARK_PREFIX}${kind}]`;

interface TokenRule {
  kind: string;
  /**
   * Every match of `re` contains one of these: a text holding none is not searched. Most texts
   * hold none, and a rule's first search compiles its pattern (all of them: ~1 ms of a cold
   * save's CPU, issue 16). tests/core/redact.test.ts checks each against the corpus.
   */
  hints: readonly string[];
  re: RegExp;
  /** Keep the first capture group (a scheme word, a URL's user) in front of the marker. */
  keepGroup?: boolean;
  /** Reject a match that only looks like a secret (prose). */
  accept?: (m: RegExpExecArray) => boolean;
}

/** Long-lived vendor formats first (they name their kind best), generic shapes after. */
export const TOKEN_RULES: readonly TokenRule[] = [
  { kind: "anthropic-key", hints: ["sk-ant-"], re: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: "openai-key", hints: ["sk-"], re: /\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}/g },
  { kind: "stripe-key", hints: ["_live_", "_test_"], re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}/g },
  { kind: "stripe-webhook-secret", hints: ["whsec_"], re: /\bwhsec_[A-Za-z0-9]{20,}/g },
  { kind: "github-token", hints: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"], re: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}/g },
  { kind: "github-token", hints: ["github_pat_"], re: /\bgithub_pat_[A-Za-z0-9_]{30,}/g },
  { kind: "gitlab-token", hints: ["glpat-"], re: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { kind: "slack-token", hints: ["xox"], re: /\bxox[abposrce]-[A-Za-z0-9-]{10,}/g },
  { kind: "slack-webhook", hints: ["https://hooks.slack.com/services/"], re: /\bhttps:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9_/]{10,}/g },
  { kind: "discord-webhook", hints: ["discord"], re: /\bhttps:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]{20,}/g },
  { kind: "aws-access-key", hints: ["AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "AROA", "APKA", "ASCA"], re: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}\b/g },
  { kind: "google-api-key", hints: ["AIza"], re: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: "google-oauth-secret", hints: ["GOCSPX-"], re: /\bGOCSPX-[A-Za-z0-9_-]{20,}/g },
  { kind: "google-oauth-token", hints: ["ya29."], re: /\bya29\.[A-Za-z0-9_-]{20,}/g },
  { kind: "jwt", hints: ["eyJ"], re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: "npm-token", hints: ["npm_"], re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: "pypi-token", hints: ["pypi-"], re: /\bpypi-[A-Za-z0-9_-]{50,}/g },
  { kind: "huggingface-token", hints: ["hf_"], re: /\bhf_[A-Za-z0-9]{30,}/g },
  { kind: "sendgrid-key", hints: ["SG."], re: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g },
  { kind: "twilio-key", hints: ["SK"], re: /\bSK[0-9a-f]{32}\b/g },
  { kind: "mailgun-key", hints: ["key-"], re: /\bkey-[0-9a-f]{32}\b/g },
  { kind: "digitalocean-token", hints: ["_v1_"], re: /\bdo[opr]_v1_[a-f0-9]{64}\b/g },
  { kind: "shopify-token", hints: ["shp"], re: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g },
  { kind: "databricks-token", hints: ["dapi"], re: /\bdapi[a-f0-9]{32}\b/g },
  { kind: "doppler-token", hints: ["dp."], re: /\bdp\.(?:pt|st|sa|ct)\.[A-Za-z0-9]{40,}/g },
  { kind: "age-secret-key", hints: ["AGE-SECRET-KEY-1"], re: /\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b/g },
  { kind: "telegram-bot-token", hints: [":AA"], re: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/g },
  {
    // Authorization: Bearer <token> / Basic <base64>; a prose word after "Basic" is no token
    kind: "bearer-token",
    hints: ["Bearer", "Basic", "Token", "token"],
    re: /\b(Bearer|Basic|Token|token)\s+([A-Za-z0-9._~+/-]{16,}=*)/g,
    keepGroup: true,
    accept: (m) => /[0-9]/.test(m[2]!) || (/^B/.test(m[1]!) && /[A-Z=+/]/.test(m[2]!.slice(1))),
  },
  {
    // scheme://user:password@host: the password goes, the user and host stay
    kind: "url-password",
    hints: ["://"],
    re: /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/[^\s:/?#@'"<>]{0,256}:)([^\s/?#'"<>]{1,256})@/g,
    keepGroup: true,
  },
];

/** Words that make an identifier name a secret (split on _ . - and camelCase). */
const SECRET_WORDS = new Set([
  "password", "passwd", "pwd", "passphrase", "pass", "secret", "secrets", "token", "tokens", "apikey",
  "credential", "credentials", "privatekey", "accountkey", "authorization", "cookie", "sessionid", "otp",
]);

/** Words that make an identifier name something about a secret, not the secret itself. */
const NOT_SECRET_WORDS = new Set([
  "count", "max", "min", "limit", "length", "len", "size", "budget", "usage", "num", "number", "total", "type",
  "ttl", "expiry", "expires", "expiration", "url", "uri", "endpoint", "file", "path", "dir", "name", "id", "field",
  "header", "param", "policy", "rotation", "env", "var", "prefix", "format", "hint", "label", "enabled", "required",
  "mode", "reset", "strength", "rule", "rules", "manager", "store", "provider", "flow", "validator", "validation",
]);

/** "<something> key" names a secret unless the something is one of these. */
const PLAIN_KEYS = new Set([
  "primary", "foreign", "sort", "partition", "cache", "hash", "public", "map", "unique", "composite", "idempotency",
  "lookup", "object", "dict", "row", "group", "index", "shard", "routing", "dedup", "dedupe", "natural", "surrogate",
  "search", "hot", "translation", "i18n", "locale", "react", "list", "join", "ssh", "gpg", "host", "keyboard", "my",
]);

function identifierWords(id: string): string[] {
  return id
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[\s_.-]+/)
    .filter(Boolean);
}

/** The kind of secret an identifier (API_KEY, dbPassword, client-secret, PGPASSWORD) names, or null. */
export function secretKindOfName(id: string): string | null {
  return nameKind(id)?.kind ?? null;
}

interface NameKind {
  kind: string;
  /**
   * Named only by an environment-variable form (PGPASSWORD, ROOTPW, SSH_KEY): the value must
   * look like a value (4+ characters, and not a lowercase word set apart from the "=" by a
   * space), so prose such as "the PGPASSWORD= variable" stays.
   */
  loose: boolean;
}

/**
 * Every name a rule below can flag holds one of these, lower-cased: each rule asks for one of
 * these words or endings (wordKind, fusedKind, envKind, FUSED_KEY). A name holding none is not
 * searched: the rules' first searches compile a dozen patterns, ~0.3 ms of a cold save whose
 * text holds a "word:" (issue 16). tests/core/redact.test.ts compares both over many names.
 */
const SECRET_NAME_HINTS = ["pass", "pw", "secret", "token", "key", "credential", "authorization", "cookie", "sessionid", "otp"];

function nameKind(id: string): NameKind | null {
  // the shell's working folders
  if (id === "PWD" || id === "OLDPWD") return null;
  const lower = id.toLowerCase();
  return SECRET_NAME_HINTS.some((h) => lower.includes(h)) ? nameKindByRules(id) : null;
}

/** nameKind without its hints: every rule asked (exported for the test that the hints miss none). */
export function nameKindByRules(id: string): NameKind | null {
  const kind = wordKind(id);
  if (kind) return { kind, loose: false };
  const loose = envKind(id) ?? fusedKind(id);
  return loose ? { kind: loose, loose: true } : null;
}

/** "<prefix>key" words that name a secret in any style (apiKey, masterkey, SECRETKEY). */
const FUSED_KEY = /^(?:api|access|private|signing|encryption|master|account|session|app|client|service|admin|deploy|license|secret|auth|hmac|jwt|crypt|encrypt|sign|sk)key$/;

function wordKind(id: string): string | null {
  const words = identifierWords(id);
  if (words.length === 0 || words.length > 8) return null;
  if (words.some((w) => NOT_SECRET_WORDS.has(w))) return null;
  if (words.some((w) => w === "password" || w === "passwd" || w === "pwd" || w === "passphrase" || w === "pass")) return "password";
  if (words.some((w) => SECRET_WORDS.has(w))) return words.some((w) => w === "token" || w === "tokens") ? "token" : "secret";
  const last = words[words.length - 1]!;
  if (last === "key" && words.length >= 2 && !PLAIN_KEYS.has(words[words.length - 2]!)) return "secret";
  if (FUSED_KEY.test(last)) return "secret";
  return null;
}

/** One word that ends in the name of a secret: pgpassword, masterPassphrase, authtoken, appsecret. */
function fusedKind(id: string): string | null {
  const words = identifierWords(id);
  const last = words[words.length - 1] ?? "";
  if (words.length > 8 || words.some((w) => NOT_SECRET_WORDS.has(w))) return null;
  if (/.(?:password|passwd|passphrase)$/.test(last)) return "password";
  if (/.token$/.test(last)) return "token";
  if (/.secret$/.test(last)) return "secret";
  return null;
}

/** Words before the last part of an environment variable that make it a setting, not a secret. */
const ENV_SETTING_WORDS = new Set([
  "count", "max", "min", "limit", "length", "len", "size", "budget", "usage", "num", "number", "total", "type", "ttl",
  "expiry", "expires", "expiration", "policy", "rotation", "format", "hint", "label", "enabled", "required", "mode",
  "reset", "strength", "rule", "rules", "validator", "validation",
]);

/** Key names that say what a key indexes, not what it unlocks (SORT_KEY, PUBLIC_KEY). */
const ENV_PLAIN_KEYS = new Set([...PLAIN_KEYS].filter((w) => !["ssh", "gpg", "host", "my"].includes(w)).concat(["pub"]));

/** English words that end in "pass" (COMPASS is not a password). */
const PASS_WORDS = new Set(["compass", "bypass", "encompass", "surpass", "trespass", "overpass", "underpass", "impass"]);

/**
 * The secret an environment variable (UPPER_SNAKE) names by its last part: PGPASSWORD,
 * MYSQL_ROOT_PASS, ROOTPW, ENV_TOKEN, OPENAIAPIKEY, SSH_KEY.
 */
function envKind(id: string): string | null {
  if (!/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/.test(id) || id.length > 60) return null;
  const parts = id.toLowerCase().split("_");
  const last = parts[parts.length - 1]!;
  if (parts.slice(0, -1).some((w) => ENV_SETTING_WORDS.has(w))) return null;
  if (/(?:password|passwd|passphrase)$/.test(last)) return "password";
  if (/(?:pass|pwd|pw)$/.test(last) && !PASS_WORDS.has(last) && (last.length > 2 || parts.length > 1)) return "password";
  if (/token$/.test(last)) return "token";
  if (/secret$/.test(last)) return "secret";
  if (/.apikey$/.test(last) || FUSED_KEY.test(last)) return "secret";
  if (last === "key" && parts.length >= 2 && !ENV_PLAIN_KEYS.has(parts[parts.length - 2]!)) return "secret";
  return null;
}

/** Values that stand for a secret without being one (placeholders, references, empties). */
const PLACEHOLDER =
  /^(?:|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$\{\{.*\}\}|%[A-Za-z_][A-Za-z0-9_]*%|<[^<>]*>|\{\{.*\}\}|\*+|x+|X+|\.\.\.|…|null|nil|none|None|undefined|true|false|Bearer|Basic|Token|token|\[REDACTED:[a-z0-9-]+\]|(?:process\.env|os\.environ|env|ENV|secrets|vars)[.[(].*)$/;

// NAME=value, NAME: value, "name": "value", name := value; the value is read only after the name
// is known to name a secret, so "note: password=x" still finds the password
const ASSIGNMENT_HEAD = /(?<![A-Za-z0-9_.])(["']?)([A-Za-z_][A-Za-z0-9_.-]{0,60})\1[ \t]{0,3}(?::=|=>|=|:)[ \t]{0,3}/g;
const ASSIGNMENT_VALUE = /"[^"\n]{0,500}"|'[^'\n]{0,500}'|`[^`\n]{0,500}`|<[^<>\n]{0,100}>|[^\s"'`,;]{1,500}/y;

// "the password is hunter2", "password for the VPN is ..."
const SPOKEN_PASSWORD = /\b(pass(?:word|phrase|wd)|pwd)(\s+for\s+[^\s]{1,60})?(\s+(?:is|was)\s+)(\S{1,200})/gi;
const SPOKEN_NOT_A_VALUE = new Set([
  "a", "an", "the", "not", "too", "required", "wrong", "incorrect", "correct", "invalid", "expired", "empty", "missing",
  "set", "stored", "hashed", "encrypted", "salted", "needed", "optional", "reset", "changed", "weak", "strong", "in",
  "never", "only", "always", "still", "now", "being", "also", "checked", "validated", "sent", "saved", "kept", "long",
  "short", "case-sensitive", "rotated", "managed", "handled", "generated", "random", "unique", "visible", "hidden",
]);

/** A command-line flag followed by its secret: --password hunter2, --token abc. */
const FLAG_VALUE = /(?<![A-Za-z0-9_-])(--?(?:password|passwd|pass|token|secret|api-key|apikey|access-key|auth-token|client-secret))([ \t]+)([^\s"'`-][^\s"'`]{0,300})/gi;

/** Every match of FLAG_VALUE holds one of these, lower-cased. */
const FLAG_HINTS = ["-pass", "-token", "-secret", "-api-key", "-apikey", "-access-key", "-auth-token", "-client-secret"];

/** curl's own credential: curl -u admin:hunter2 (only the password part goes). */
const CURL_USER = /\b(curl\b[^\n]{0,300}?[ \t])(-u|--user|--proxy-user)([ \t]+|=)(["']?)([^\s:"'`]{1,100}):([^\s"'`]{1,300})/g;
/** A MySQL/MariaDB client's password glued to its flag: mysql -uroot -phunter2 (-p alone prompts). */
const MYSQL_PASSWORD = /\b((?:mysql|mariadb)[a-z-]{0,20}\b[^\n]{0,300}?[ \t])-p([^\s"'`]{1,300})/g;
/**
 * A key named in words, then its value: "api key: 3f2a...", "the AWS secret access key is
 * wJalr...". The value must look like one (16+ characters with a letter and a digit, not words
 * joined by dashes), so "the api key is stored in the vault" stays.
 */
const SPOKEN_KEY = /\b((?:api|access|secret|private|signing|encryption|master|client|account|service|deploy)(?:[ \t]+access)?[ \t]+key)((?:[ \t]+(?:is|was))?[ \t]*[:=]?[ \t]*[ \t])([A-Za-z0-9+/=_.-]{16,300})/gi;

function redactCommandLines(text: string, found: string[]): string {
  let out = text;
  const lower = text.toLowerCase();
  if (lower.includes("curl")) out = out.replace(CURL_USER, (whole, head: string, flag: string, sep: string, quote: string, user: string, pass: string) => {
    const bare = quote && pass.endsWith(quote) ? pass.slice(0, -1) : pass;
    // a uid:gid pair is not a credential
    if (PLACEHOLDER.test(bare) || bare.includes(MARK_PREFIX) || (/^\d+$/.test(user) && /^\d+$/.test(bare))) return whole;
    found.push("password");
    return `${head}${flag}${sep}${quote}${user}:${mark("password")}${pass.slice(bare.length)}`;
  });
  if (lower.includes("mysql") || lower.includes("mariadb")) out = out.replace(MYSQL_PASSWORD, (whole, head: string, value: string) => {
    if (PLACEHOLDER.test(value) || value.includes(MARK_PREFIX)) return whole;
    found.push("password");
    return `${head}-p${mark("password")}`;
  });
  if (lower.includes("key")) out = out.replace(SPOKEN_KEY, (whole, name: string, sep: string, value: string) => {
    // a name made of words (rotation-policy-2024, user_id_v2) is not a key's value
    if (!/[A-Za-z]/.test(value) || !/\d/.test(value) || /^[a-z]+(?:[-_.][a-z0-9]+)+$/.test(value) || PLACEHOLDER.test(value)) return whole;
    found.push("secret");
    return `${name}${sep}${mark("secret")}`;
  });
  return out;
}

/**
 * A secret with no name or prefix before it ("... with secret wJalrXUtnFEMI/K7MDENG/..."): the
 * shape of an AWS secret access key, which other providers' 40-character keys share: a word of
 * exactly 40 characters of [A-Za-z0-9+/], apart from any longer token (no "=", "_", "-" or "."
 * glued to it, not inside a URL), that is random: upper case, lower case and a digit, not hex
 * (a git SHA-1, a hash), not base64 of printable text (an encoded sentence), with the class
 * changes (a to B, B to 7, 7 to /) a random string has (25 in 39 on average; under 14 is a
 * word-made name or path: "src/components/UserProfile/Settings2Form" has 13), and fewer than 16
 * letters in lower-case runs of 4 or more ("lib/Http2ServerRequestHandlerFactoryImpl" has 23).
 * Of random 40-character keys about 4 in 1,000 are kept.
 */
const BARE_KEY_LENGTH = 40;

const isKeyChar = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
/** Glued to a key's run, these make it part of a longer token (padding, an identifier, a name). */
const isGlue = (c: number) => c === 61 || c === 95 || c === 45 || c === 46;

function classOf(c: number): number {
  if (c >= 65 && c <= 90) return 0;
  if (c >= 97 && c <= 122) return 1;
  if (c >= 48 && c <= 57) return 2;
  return 3;
}

/** A base64 character's value (its run holds no other characters). */
const b64 = (c: number) => (c >= 65 && c <= 90 ? c - 65 : c >= 97 && c <= 122 ? c - 71 : c >= 48 && c <= 57 ? c + 4 : c === 43 ? 62 : 63);
const printable = (b: number) => b === 9 || b === 10 || b === 13 || (b >= 32 && b < 127);

/** The 40 characters decode (as base64) to printable ASCII: an encoded text, not a key. */
function base64OfText(w: string): boolean {
  for (let i = 0; i < w.length; i += 4) {
    const n = (b64(w.charCodeAt(i)) << 18) | (b64(w.charCodeAt(i + 1)) << 12) | (b64(w.charCodeAt(i + 2)) << 6) | b64(w.charCodeAt(i + 3));
    if (!printable((n >> 16) & 255) || !printable((n >> 8) & 255) || !printable(n & 255)) return false;
  }
  return true;
}

export function looksLikeBareKey(w: string): boolean {
  if (w.length !== BARE_KEY_LENGTH) return false;
  let upper = false;
  let lower = false;
  let digit = false;
  let hex = true;
  let changes = 0;
  // letters in lower-case runs of 4 or more: the words of a name or path (random: 16+ in 0.2 %)
  let wordy = 0;
  let run = 0;
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    const k = classOf(c);
    run = k === 1 ? run + 1 : 0;
    if (run === 4) wordy += 4;
    else if (run > 4) wordy++;
    if (k === 0) upper = true;
    else if (k === 1) lower = true;
    else if (k === 2) digit = true;
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) hex = false;
    if (i > 0 && classOf(w.charCodeAt(i - 1)) !== k) changes++;
  }
  return upper && lower && digit && !hex && changes >= 14 && wordy < 16 && !base64OfText(w);
}

/** A run of exactly 40 key characters (the engine finds them: a JavaScript loop over every character cost ~10 ms on 50,000 without the JIT). */
const BARE_RUN = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/])/g;

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029;

function redactBareKeys(text: string, found: string[]): string {
  if (text.length < BARE_KEY_LENGTH) return text;
  let out = "";
  let at = 0;
  // whether the word (up to a space) holding the run holds "://": a URL's path, not a secret of
  // its own (a URL's password has its own rule); read once, up to each run judged a key
  let read = 0;
  let inUrl = false;
  BARE_RUN.lastIndex = 0;
  for (let m = BARE_RUN.exec(text); m; m = BARE_RUN.exec(text)) {
    const start = m.index;
    const end = start + BARE_KEY_LENGTH;
    const before = start > 0 ? text.charCodeAt(start - 1) : 32;
    // a sentence's full stop may follow a key; a "." glued to more of the token may not
    const after = end < text.length ? text.charCodeAt(end) : 32;
    const afterNext = end + 1 < text.length ? text.charCodeAt(end + 1) : 32;
    if (isGlue(before) || (isGlue(after) && !(after === 46 && !isKeyChar(afterNext) && !isGlue(afterNext)))) continue;
    if (!looksLikeBareKey(m[0])) continue;
    for (; read < start; read++) {
      const c = text.charCodeAt(read);
      if (isSpace(c)) inUrl = false;
      else if (c === 58 && text.startsWith("://", read)) inUrl = true;
    }
    if (inUrl) continue;
    found.push("aws-secret-key");
    out += text.slice(at, start) + mark("aws-secret-key");
    at = end;
  }
  return at === 0 ? text : out + text.slice(at);
}

function redactTokens(text: string, found: string[]): string {
  let out = text;
  for (const rule of TOKEN_RULES) {
    if (!rule.hints.some((h) => out.includes(h))) continue;
    rule.re.lastIndex = 0;
    if (!rule.re.test(out)) continue;
    rule.re.lastIndex = 0;
    out = out.replace(rule.re, (...args: unknown[]) => {
      const m = args.slice(0, -2) as unknown as RegExpExecArray;
      if (rule.accept && !rule.accept(m)) return m[0];
      found.push(rule.kind);
      if (!rule.keepGroup) return mark(rule.kind);
      return rule.kind === "bearer-token" ? `${m[1]} ${mark(rule.kind)}` : `${m[1]}${mark(rule.kind)}@`;
    });
  }
  return out;
}

function redactAssignments(text: string, found: string[]): string {
  let out = "";
  let at = 0;
  ASSIGNMENT_HEAD.lastIndex = 0;
  // as TOKEN_RULES' hints: a pattern is searched (and so compiled) only where it can match
  const assigns = text.includes("=") || text.includes(":");
  for (let m = assigns ? ASSIGNMENT_HEAD.exec(text) : null; m; m = ASSIGNMENT_HEAD.exec(text)) {
    const named = nameKind(m[2]!);
    if (!named) continue;
    const kind = named.kind;
    const valueAt = m.index + m[0].length;
    ASSIGNMENT_VALUE.lastIndex = valueAt;
    const v = ASSIGNMENT_VALUE.exec(text);
    if (!v) continue;
    const value = v[0];
    const quote = value[0] === '"' || value[0] === "'" || value[0] === "`" ? value[0] : "";
    const inner = quote ? value.slice(1, -1) : value;
    if (PLACEHOLDER.test(inner.trim()) || inner.includes(MARK_PREFIX)) continue;
    if (named.loose && (inner.trim().length < 4 || (!quote && /[ \t]$/.test(m[0]) && /^[a-z]+[.,;:]?$/.test(inner)))) continue;
    found.push(kind);
    out += `${text.slice(at, valueAt)}${quote}${mark(kind)}${quote}`;
    at = valueAt + value.length;
    ASSIGNMENT_HEAD.lastIndex = at;
  }
  out += text.slice(at);
  // both are case-insensitive over ASCII words: a match leaves its word in the lower-cased text
  let lower = out.toLowerCase();
  if (lower.includes("pass") || lower.includes("pwd")) {
    out = out.replace(SPOKEN_PASSWORD, (whole, word: string, forWhat: string | undefined, is: string, value: string) => {
      const bare = value.replace(/[.,;:!?)"']+$/, "");
      if (!bare || SPOKEN_NOT_A_VALUE.has(bare.toLowerCase()) || PLACEHOLDER.test(bare) || bare.includes(MARK_PREFIX)) return whole;
      found.push("password");
      return `${word}${forWhat ?? ""}${is}${mark("password")}${value.slice(bare.length)}`;
    });
    lower = out.toLowerCase();
  }
  if (FLAG_HINTS.some((h) => lower.includes(h))) out = out.replace(FLAG_VALUE, (whole, flag: string, sp: string, value: string) => {
    if (PLACEHOLDER.test(value) || value.includes(MARK_PREFIX)) return whole;
    const kind = /pass/i.test(flag) ? "password" : "secret";
    found.push(kind);
    return `${flag}${sp}${mark(kind)}`;
  });
  return out;
}

/**
 * PEM private keys (RSA, EC, OpenSSH, PGP, PKCS#8, encrypted): from BEGIN to the matching END;
 * a block with no END is removed to the end of the text (a truncated key is still a key).
 */
function redactPrivateKeys(text: string, found: string[]): string {
  if (!text.includes("-----BEGIN ")) return text;
  let out = "";
  let at = 0;
  for (;;) {
    const begin = text.indexOf("-----BEGIN ", at);
    if (begin === -1) break;
    const labelEnd = text.indexOf("-----", begin + 11);
    const label = labelEnd === -1 || labelEnd - begin > 80 ? "" : text.slice(begin + 11, labelEnd);
    if (!/PRIVATE KEY/.test(label)) {
      out += text.slice(at, begin + 11);
      at = begin + 11;
      continue;
    }
    const endMarker = `-----END ${label}-----`;
    const end = text.indexOf(endMarker, labelEnd + 5);
    out += text.slice(at, begin) + mark("private-key");
    found.push("private-key");
    if (end === -1) {
      at = text.length;
      break;
    }
    at = end + endMarker.length;
  }
  return out + text.slice(at);
}

const PRIVATE_TAG = /<(\/?)private\s*>/gi;

/**
 * Remove every <private>...</private> span (tags included, case-insensitive, nested spans
 * counted). An unclosed <private> hides the rest of the text; a stray </private> is dropped.
 */
export function stripPrivate(text: string): { text: string; removed: boolean } {
  if (!text.toLowerCase().includes("private") || !/<\/?private\s*>/i.test(text)) return { text, removed: false };
  let out = "";
  let depth = 0;
  let at = 0;
  PRIVATE_TAG.lastIndex = 0;
  for (let m = PRIVATE_TAG.exec(text); m; m = PRIVATE_TAG.exec(text)) {
    if (depth === 0) out += text.slice(at, m.index);
    depth = m[1] ? Math.max(0, depth - 1) : depth + 1;
    at = m.index + m[0].length;
  }
  if (depth === 0) out += text.slice(at);
  return { text: out, removed: true };
}

export interface Redaction {
  text: string;
  /** The kind of each secret replaced, in order (e.g. ["github-token", "password"]). */
  found: string[];
}

/** Replace every secret in a text by [REDACTED:kind]. Idempotent. */
export function redactSecrets(text: string): Redaction {
  const found: string[] = [];
  let out = redactPrivateKeys(text, found);
  out = redactTokens(out, found);
  out = redactAssignments(out, found);
  out = redactCommandLines(out, found);
  // last: a key the rules above named keeps their kind
  out = redactBareKeys(out, found);
  return { text: out, found };
}

export interface CleanText extends Redaction {
  /** A <private> span was removed. */
  privateRemoved: boolean;
}

/** What is stored of a text: no <private> span, no secret. */
export function cleanText(text: string): CleanText {
  // short texts repeat across records (tags, entities, sources: an import of 10,000 memories
  // cleaned 27 strings a record, 10,000 of them distinct): each is cleaned once per process
  if (text.length <= SHORT_TEXT) {
    const known = shortTexts.get(text);
    if (known) return { text: known.text, found: [...known.found], privateRemoved: known.privateRemoved };
  }
  const p = stripPrivate(text);
  const r = redactSecrets(p.text);
  const out = { ...r, privateRemoved: p.removed };
  if (text.length <= SHORT_TEXT) {
    if (shortTexts.size >= SHORT_TEXTS_KEPT) shortTexts.clear();
    shortTexts.set(text, { text: out.text, found: [...out.found], privateRemoved: out.privateRemoved });
  }
  return out;
}

const SHORT_TEXT = 64;
const SHORT_TEXTS_KEPT = 8192;
const shortTexts = new Map<string, CleanText>();

/** Keys whose values are structure, never free text. */
const STRUCTURAL = new Set(["id", "from_memory_id", "to_memory_id"]);

/** A value standing alone under a key that names a secret ({"api_key": "..."}, --meta password=x). */
const LONE_VALUE = /^\S{4,500}$/;

/**
 * Clean every string in a record (content, gist, decision texts, meta.source/context, tags,
 * entities, fields memsync does not know), and every object key, in place. A key is cleaned as a
 * text ({"ghp_...": 1} becomes {"[REDACTED:github-token]": 1}); two keys that clean to the same
 * text both stay, the later ones suffixed "-2", "-3"... (in the order of their original names, so
 * every machine names them alike). A lone value under a key that names a secret
 * ({"db_password": "hunter22"}) is replaced whole. `keys: false` leaves keys as they are (a patch
 * whose keys are cleaned once merged, so a new secret key never overwrites an older one).
 */
export function cleanRecord(value: Record<string, unknown>, opts: { keys?: boolean } = {}): { found: string[]; privateRemoved: boolean } {
  const found: string[] = [];
  let privateRemoved = false;
  const clean = (s: string): string => {
    const c = cleanText(s);
    found.push(...c.found);
    privateRemoved ||= c.privateRemoved;
    return c.text;
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return clean(v);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) v[i] = walk(v[i]);
      return v;
    }
    if (typeof v === "object" && v !== null) {
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        if (STRUCTURAL.has(k)) continue;
        const kind = typeof o[k] === "string" ? secretKindOfName(k) : null;
        const s = o[k] as string;
        if (kind && LONE_VALUE.test(s) && !PLACEHOLDER.test(s) && !s.includes(MARK_PREFIX)) {
          found.push(kind);
          o[k] = mark(kind);
        } else o[k] = walk(o[k]);
      }
      if (opts.keys !== false) renameKeys(o, clean);
    }
    return v;
  };
  walk(value);
  return { found, privateRemoved };
}

/**
 * Keys no rule can match, skipped for speed (every record's own field names): at most four
 * lowercase words of at most 9 letters joined by "_" hold no digit, no run of 10 alphanumerics, no
 * "-", ".", ":", "=", space or "<", and stay under github_pat_'s 30 characters after its prefix.
 */
const PLAIN_KEY = /^[a-z]{1,9}(?:_[a-z]{1,9}){0,3}$/;

/** Give every key its cleaned name, keeping apart keys that clean to the same text. */
function renameKeys(o: Record<string, unknown>, clean: (s: string) => string): void {
  const renamed: [string, string][] = [];
  for (const k of Object.keys(o)) {
    if (STRUCTURAL.has(k) || PLAIN_KEY.test(k)) continue;
    const c = clean(k);
    if (c !== k) renamed.push([k, c === "" ? mark("private") : c]);
  }
  if (renamed.length === 0) return;
  renamed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const values = renamed.map(([k]) => o[k]);
  for (const [k] of renamed) delete o[k];
  renamed.forEach(([, name], i) => {
    let unique = name;
    for (let n = 2; Object.hasOwn(o, unique); n++) unique = `${name}-${n}`;
    o[unique] = values[i];
  });
}
