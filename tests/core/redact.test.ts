import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import { createMemory, createRelation, updateMemory } from "../../src/core/records.ts";
import { cleanText, looksLikeBareKey, nameKindByRules, redactSecrets, secretKindOfName, stripPrivate, TOKEN_RULES } from "../../src/core/redact.ts";
import { assertInvalid } from "../helpers/assert-error.ts";
import { cpuMs } from "../helpers/cpu-time.ts";
import { makeRng } from "../helpers/rng.ts";
import { leaks, loadSecrets } from "../helpers/secrets.ts";

// Secrets never reach a record: the pure redaction (core/redact.ts) and the record transitions
// that apply it to every string of every record.

const SECRETS = loadSecrets();

describe("redaction corpus", () => {
  test("at least 30 kinds and forms", () => {
    assert.ok(SECRETS.length >= 30, `${SECRETS.length}`);
    assert.equal(new Set(SECRETS.map((s) => s.kind)).size, SECRETS.length);
  });

  for (const s of SECRETS) {
    test(s.kind, () => {
      const out = cleanText(s.text);
      assert.ok(!leaks(out.text, s.secret), `${s.kind} leaked: ${out.text}`);
      if (s.kind === "private-span") assert.ok(out.privateRemoved);
      else assert.match(out.text, /\[REDACTED:[a-z0-9-]+\]/, out.text);
      assert.equal(cleanText(out.text).text, out.text, "redacting twice changes nothing");
    });
  }
});

// A token rule searches only a text holding one of its hints (a cold save compiled every pattern):
// each hint must be in every match of its rule, and the corpus must exercise every rule.
describe("token rules' hints", () => {
  test("every match of every rule over the corpus holds one of its hints; every rule matches", () => {
    const matched = new Set<number>();
    // forms the corpus does not hold (made up, of each format's shape)
    const extra = [`oauth ya29.${"a0_B-".repeat(6)} here`, `MG key-${"0123456789abcdef".repeat(2)} ok`, `doppler dp.st.${"Ab1".repeat(14)} set`];
    for (const text of [...SECRETS.map((s) => s.text), ...extra]) {
      TOKEN_RULES.forEach((rule, i) => {
        for (const m of text.matchAll(new RegExp(rule.re.source, rule.re.flags))) {
          matched.add(i);
          assert.ok(rule.hints.some((h) => m[0].includes(h)), `${rule.kind}: ${m[0]} holds none of ${rule.hints.join(" ")}`);
        }
      });
    }
    const unmatched = TOKEN_RULES.filter((_, i) => !matched.has(i)).map((r) => r.re.source);
    assert.deepEqual(unmatched, [], "rules the corpus never exercises");
  });
  test("a text without a hint is not searched, one with it is", () => {
    assert.deepEqual(redactSecrets("deploy with the ghp token from the vault").found, []);
    const token = `ghp_${"a1B2c3D4e5".repeat(4)}`;
    assert.deepEqual(redactSecrets(`deploy with ${token}`).found, ["github-token"]);
    assert.deepEqual(redactSecrets("run it with --password hunter22").found, ["password"]);
    assert.deepEqual(redactSecrets("RUN IT WITH --PASSWORD hunter22").found, ["password"]);
    assert.deepEqual(redactSecrets("the PASSWORD is Xk29fjQ01mzp").found, ["password"]);
    assert.equal(stripPrivate("a <PRIVATE>b</Private> c").text, "a  c");
  });
});

describe("environment-style assignments (forms the corpus does not repeat)", () => {
  const cases: [string, string][] = [
    ["MYSQL_PWD=4UlCQeAsDE2jZ5 mysql -u root", "4UlCQeAsDE2jZ5"],
    ['export SLACK_AUTH_TOKEN="YW90mbSYmqVlIkGMACcew0lGTgPta1"', "YW90mbSYmqVlIkGMACcew0lGTgPta1"],
    ["env:\n  NPM_TOKEN: frvAXIZAIq8ilTQJTMWTpXr1btuiACZOr7Px\n", "frvAXIZAIq8ilTQJTMWTpXr1btuiACZOr7Px"],
    ['{"X_TOKEN": "LtyfUqfRrsAzx6ToveKhBHujMIv3", "region": "eu"}', "LtyfUqfRrsAzx6ToveKhBHujMIv3"],
    ["export PGPASSWORD=Xk29fjQ01mzp && psql", "Xk29fjQ01mzp"],
    ["PGPASSWORD: 'Xk29fjQ01mzp'", "Xk29fjQ01mzp"],
    ['{"REDIS_PASS":"Xk29fjQ01mzp"}', "Xk29fjQ01mzp"],
    ["OPENAIAPIKEY = Xk29fjQ01mzp", "Xk29fjQ01mzp"],
    ["ADMIN_PASS=Xk29fjQ01mzp", "Xk29fjQ01mzp"],
  ];
  for (const [text, secret] of cases) {
    test(JSON.stringify(text.slice(0, 40)), () => {
      const out = redactSecrets(text).text;
      assert.ok(!out.includes(secret), out);
      assert.match(out, /\[REDACTED:(password|token|secret)\]/);
    });
  }
});

describe("what is not a secret stays", () => {
  const keep = [
    "Let's use PostgreSQL for the analytics DB because we need JSONB and vector support",
    "set max_tokens=4096 and PASSWORD_FILE=/run/secrets/db",
    "the token expires in 5 minutes",
    "password: ${DB_PASSWORD}",
    "API_KEY=<your key here>",
    "SECRET_NAME=billing-db",
    "primary key: id",
    "basic authentication_configuration is fine",
    "see https://github.com/org/repo/blob/main/README.md",
    "a risk-management-dashboard-component-library",
    "the password is required and hashed with argon2",
    "token: null",
    "Bearer tokens are sent in the Authorization header",
    "-----BEGIN CERTIFICATE-----\nMIIBkTCB+wIJAK\n-----END CERTIFICATE-----",
    "the PGPASSWORD= variable is read by psql",
    "the KEY= format is documented",
    "set MAX_TOKENS=4096 and TOKEN_TYPE=bearer",
    "COMPASS=north",
    "docker run -u 1000:1000 app",
    "curl -u $API_USER:$API_TOKEN https://api.example.com",
    "mysql -u root -p shop",
    "the api key is stored in the vault",
    "the private key is 2048 bits",
    "the access key rotation-policy-2024 applies",
    "git push -u origin main",
    "PWD=/home/me/project OLDPWD=/tmp",
    "CACHE_KEY=user_42 and SORT_KEY=created_at",
    "PGPASSWORD=${PGPASSWORD} psql",
    "DB_PASS=xxx",
  ];
  for (const text of keep) {
    test(JSON.stringify(text.slice(0, 50)), () => {
      assert.equal(redactSecrets(text).text, text);
    });
  }

  test("names of secrets", () => {
    for (const n of ["PASSWORD", "db_password", "dbPassword", "API_KEY", "apiKey", "client-secret", "GITHUB_TOKEN", "STRIPE_KEY", "AccountKey"]) assert.ok(secretKindOfName(n), n);
    // environment variables named by their last part, fused or not
    for (const n of ["PGPASSWORD", "MASTERPASSWORD", "PGPASS", "DBPASS", "REDIS_PASS", "MYSQL_PWD", "ROOTPW", "OPENAIAPIKEY", "AUTHKEY", "ENV_TOKEN", "AUTHTOKEN", "JWTSECRET", "SSH_KEY", "MY_KEY", "pgpassword", "authToken"]) {
      assert.ok(secretKindOfName(n), n);
    }
    for (const n of ["primary_key", "max_tokens", "PASSWORD_FILE", "token_url", "key", "sort_key", "bypass", "SECRET_NAME", "COMPASS", "BYPASS", "PWD", "OLDPWD", "KEY", "MAX_TOKENS", "TOKEN_TYPE", "PUBLIC_KEY", "CACHE_KEY", "MAX_TOKEN", "monkey"]) {
      assert.equal(secretKindOfName(n), null, n);
    }
  });

  test("a name is searched only where it holds a hint, and the hints miss no name a rule flags", () => {
    // every word and ending the rules know, and others, in every style a name is written in
    const words = [
      "password", "passwd", "pwd", "passphrase", "pass", "secret", "secrets", "token", "tokens", "apikey", "credential", "credentials",
      "privatekey", "accountkey", "authorization", "cookie", "sessionid", "otp", "key", "pw", "api", "access", "private", "signing",
      "master", "session", "app", "client", "auth", "jwt", "sk", "db", "root", "mysql", "pg", "redis", "github", "aws", "primary", "sort",
      "public", "cache", "ssh", "my", "max", "count", "url", "file", "type", "name", "note", "compass", "bypass", "monkey", "id", "user",
    ];
    const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
    const names = new Set<string>(["PWD", "OLDPWD", "ROOTPW", "PGPASS", "Note", "TODO", "http", "x", ""]);
    for (const a of words) {
      names.add(a).add(a.toUpperCase()).add(cap(a));
      for (const b of words) {
        for (const n of [`${a}_${b}`, `${a}${cap(b)}`, `${a}-${b}`, `${a}.${b}`, `${a}${b}`, `${a}_${b}`.toUpperCase(), `${a}${b}`.toUpperCase(), `${cap(a)}${cap(b)}`]) names.add(n);
      }
    }
    let flagged = 0;
    for (const n of names) {
      const byRules = n === "PWD" || n === "OLDPWD" ? null : (nameKindByRules(n)?.kind ?? null);
      if (byRules) flagged++;
      assert.equal(secretKindOfName(n), byRules, n);
    }
    assert.ok(flagged > 1000, `the rules flag many of these names (${flagged})`);
  });
});

describe("<private>", () => {
  test("spans are removed, nested and unclosed ones too", () => {
    assert.equal(stripPrivate("a <private>b</private> c").text, "a  c");
    assert.equal(stripPrivate("a <PRIVATE>b <private>c</private> d</Private> e").text, "a  e");
    assert.equal(stripPrivate("a <private>b c").text, "a ");
    assert.equal(stripPrivate("a </private> b").text, "a  b");
    assert.equal(stripPrivate("no tags").removed, false);
  });
});

const ORIGIN = { now: 1_790_000_000, machine: "m", user: "u" };
const ID = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d";

describe("records are cleaned whatever field the secret is in", () => {
  test("createMemory: content, gist, decision, meta, tags, entities, unknown fields", () => {
    const s = SECRETS.find((x) => x.kind === "github-token")!;
    const p = SECRETS.find((x) => x.kind === "env-password")!;
    const m = createMemory(
      {
        content: `Use the bot: ${s.text}`,
        gist: s.text,
        decision: { what: s.secret, why: p.text, alternatives: [p.text], constraints: [s.text], tradeoffs: [] },
        meta: { source: s.text, context: p.text, extra: { note: s.text } },
        tags: ["ok"],
        entities: [s.secret],
        x_unknown: { deep: [s.text, p.text] },
      },
      ID,
      ORIGIN,
    );
    const file = JSON.stringify(m);
    assert.ok(!leaks(file, s.secret) && !leaks(file, p.secret), file);
    assert.match(m.content, /\[REDACTED:github-token\]/);
  });

  test("updateMemory cleans the patch and text stored before redaction existed", () => {
    const legacy = { ...createMemory({ content: "plain" }, ID, ORIGIN), content: "old note SECRET=abcdefghijklmnop" };
    const r = updateMemory(legacy, { meta: { tags: ["x"] } }, ORIGIN.now + 1);
    assert.ok(!r.memory.content.includes("abcdefghijklmnop"));
    const s = SECRETS.find((x) => x.kind === "openai-key")!;
    const r2 = updateMemory(legacy, { content: s.text }, ORIGIN.now + 1);
    assert.ok(!leaks(JSON.stringify(r2.memory), s.secret));
    assert.equal(legacy.content, "old note SECRET=abcdefghijklmnop", "the memory passed in is not changed");
  });

  test("a memory that is nothing but private is refused", () => {
    assertInvalid(() => createMemory({ content: "<private>only mine</private>" }, ID, ORIGIN), /entirely <private>/);
    const m = createMemory({ content: "shared <private>not this</private>" }, ID, ORIGIN);
    assert.equal(m.content, "shared ");
    assertInvalid(() => updateMemory(m, { content: "  <private>x</private> " }, ORIGIN.now), /entirely <private>/);
  });

  test("relation metadata is cleaned", () => {
    const s = SECRETS.find((x) => x.kind === "slack-bot-token")!;
    const r = createRelation({ from: ID, to: "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7e", type: "related", metadata: { why: s.text } }, "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7f", 1);
    assert.ok(!leaks(JSON.stringify(r), s.secret));
  });

  test("entity relations must connect the memory's own entities", () => {
    assertInvalid(
      () => createMemory({ content: "x", entities: ["redis"], entity_relations: [{ from: "redis", type: "CHOSE_OVER", to: "some free text" }] }, ID, ORIGIN),
      /not one of the memory's entities/,
    );
    const ok = createMemory({ content: "x", entities: ["Redis", "memcached"], entity_relations: [{ from: "redis", type: "CHOSE_OVER", to: "memcached" }] }, ID, ORIGIN);
    assert.equal(ok.entity_relations?.length, 1);
  });
});

describe("object keys are cleaned like values", () => {
  const t1 = SECRETS.find((x) => x.kind === "github-token")!.secret;
  const t2 = SECRETS.find((x) => x.kind === "gitlab-token")!.secret;
  const t3 = `${t1.slice(0, -4)}WXYZ`;

  test("a token used as a key becomes its marker; two keys that clean alike both stay", () => {
    const m = createMemory({ content: "x", meta: { extra: { [t1]: 1, [t3]: 2, [t2]: { [t1]: "deep" } } }, [t3]: true }, ID, ORIGIN);
    const file = JSON.stringify(m);
    for (const t of [t1, t2, t3]) assert.ok(!leaks(file, t), file);
    assert.deepEqual(m.meta.extra, {
      "[REDACTED:github-token]": 1,
      "[REDACTED:github-token]-2": 2,
      "[REDACTED:gitlab-token]": { "[REDACTED:github-token]": "deep" },
    });
    assert.equal((m as Record<string, unknown>)["[REDACTED:github-token]"], true);
    assert.equal(updateMemory(m, {}, ORIGIN.now + 1).changed, false, "cleaning again changes nothing");
  });

  test("an update's new secret key sits beside an older one instead of replacing it", () => {
    const m = createMemory({ content: "x", meta: { extra: { [t1]: 1 } } }, ID, ORIGIN);
    const r = updateMemory(m, { meta: { extra: { [t3]: 2 } } }, ORIGIN.now + 1);
    assert.deepEqual(r.memory.meta.extra, { "[REDACTED:github-token]": 1, "[REDACTED:github-token]-2": 2 });
    assert.ok(!leaks(JSON.stringify(r.memory), t3));
  });

  test("a lone value under a key that names a secret is replaced; prose and placeholders stay", () => {
    const r = createRelation(
      { from: ID, to: "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7e", type: "related", metadata: { db_password: "hunter2hunter2", PGPASSWORD: "Xk29fjQ01mzp", api_key: "${API_KEY}", token_notes: "rotate it every month", "PGPASSWORD=Xk29fjQ01mzp": "1" } },
      "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7f",
      1,
    );
    assert.deepEqual(r.metadata, {
      db_password: "[REDACTED:password]",
      PGPASSWORD: "[REDACTED:password]",
      api_key: "${API_KEY}",
      token_notes: "rotate it every month",
      "PGPASSWORD=[REDACTED:password]": "1",
    });
  });
});

describe("redaction is linear", () => {
  test("50,000 adversarial characters", () => {
    for (const unit of ["a", "sk-", "password=", "a://b:c@", "-----BEGIN PRIVATE KEY----- ", "Bearer ", "<private>", "eyJ", "x=y ", "password is ", "PGPASSWORD=", "A_", "AB_PASS= x ", "curl -u ", "mysql ", "api key ", "http://x/", "Qm8TzR2vK/9xLw4NpA7cJ1eHs5Ud3Yb+0GfVtXiO,", "a1B/a1B/a1B/a1B/a1B/a1B/a1B/a1B/a1B/a1B/:"]) {
      const text = unit.repeat(Math.ceil(50_000 / unit.length)).slice(0, 50_000);
      const ms = cpuMs(() => cleanText(text));
      assert.ok(ms < 2_000, `${JSON.stringify(unit)}: ${ms.toFixed(0)} ms`);
    }
  });
});

describe("short texts are cleaned once per process", () => {
  test("a repeated short text gives the same result each time, and a caller's change to one result does not reach the next", () => {
    const text = "token=ghp_0123456789abcdefABCDEF0123456789abcd";
    const first = cleanText(text);
    assert.deepEqual(first.found.length > 0, true);
    assert.doesNotMatch(first.text, /ghp_/);
    first.found.push("changed by the caller");
    const second = cleanText(text);
    assert.deepEqual(second, cleanText(text));
    assert.equal(second.text, first.text);
    assert.equal(second.found.includes("changed by the caller"), false);
    assert.deepEqual(cleanText("<private>x</private>").privateRemoved, true);
    assert.deepEqual(cleanText("<private>x</private>").privateRemoved, true, "and from the kept result too");
  });
});

// A key with no name or prefix before it (audit22): the 40-character shape of an AWS secret
// access key, judged random by its character classes; what only shares its length stays.
describe("a bare 40-character key", () => {
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

  test("random keys of the shape are redacted wherever prose puts them (at least 99 in 100)", () => {
    const rng = makeRng(22);
    let kept = 0;
    for (let i = 0; i < 2000; i++) {
      let key = "";
      for (let j = 0; j < 40; j++) key += B64[Math.floor(rng() * 64)];
      const out = redactSecrets(`the uploader runs with secret ${key}. Rotate it monthly`);
      if (out.text.includes(key)) kept++;
      else assert.equal(out.text, "the uploader runs with secret [REDACTED:aws-secret-key]. Rotate it monthly");
    }
    assert.ok(kept <= 20, `${kept} of 2000 random keys kept`);
    for (const text of ["(wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY)", "key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, then", "\"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\""]) {
      assert.deepEqual(redactSecrets(text).found, ["aws-secret-key"], text);
    }
  });

  test("a named key keeps its rule's kind; redacting twice changes nothing", () => {
    assert.deepEqual(redactSecrets("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY").found, ["secret"]);
    const once = redactSecrets("with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY").text;
    assert.equal(redactSecrets(once).text, once);
  });

  const sha256 = (s: string) => createHash("sha256").update(s).digest();
  const keep = [
    // git SHA-1s, in either case, alone and in a log line
    "commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "4B825DC642CB6EB9A060E54BF8D69288FBEE4904",
    "git show e83c5163316f89bfbde7d9ab23ca2e25604af290 --stat",
    // UUIDs, ULIDs
    "id 3f2504e0-4f89-11d3-9a0c-0305e82c3301 and 01a22029-9ecd-7518-a73d-85b7e9fd30d0",
    "01ARZ3NDEKTSV4RRFFQ69G5FAV",
    // base64 of ordinary words (30 bytes: 40 characters, no padding)
    `blob ${Buffer.from("the quick brown fox jumps over").toString("base64")}`,
    `header ${Buffer.from("Deploy to staging every Friday.").toString("base64").slice(0, 40)}`,
    Buffer.from("user:alice, role:admin, team:ops!").toString("base64").slice(0, 40),
    // file hashes: hex SHA-256, SRI, base64 SHA-1, Go sums
    `sha256 ${sha256("x").toString("hex")}`,
    `integrity sha256-${sha256("x").toString("base64")}`,
    `integrity sha512-${createHash("sha512").update("x").digest("base64")}`,
    `etag ${createHash("sha1").update("x").digest("base64")}`,
    `h1:${sha256("y").toString("base64")}`,
    // names and paths of words, an address, a URL's path, identifiers joined by _ or -
    "AbstractSingletonProxyFactoryBeanHandler",
    "src/components/UserProfile/Settings2Form",
    "lib/Http2ServerRequestHandlerFactoryImpl",
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    "https://drive.example.com/d/Qm8TzR2vK9xLw4NpA7cJ1eHs5Ud3Yb0GfVtXiOaZ/view",
    "https://example.com/Qm8TzR2vK9xLw4NpA7cJ1eHs5Ud3Yb0GfVtXiOaZ",
    "id_Qm8TzR2vK9xLw4NpA7cJ1eHs5Ud3Yb0GfVtXiOaZ",
    "Qm8TzR2vK9xLw4NpA7cJ1eHs5Ud3Yb0GfVtXiOaZ=",
    "Qm8TzR2vK9xLw4NpA7cJ1eHs5Ud3Yb0GfVtXiOaZ.png",
    // longer or shorter than 40
    "Qm8TzR2vK9xLw4NpA7cJ1eHs5Ud3Yb0GfVtXiOaZx",
    "Qm8TzR2vK9xLw4NpA7cJ1eHs5Ud3Yb0GfVtXiOa",
  ];
  for (const text of keep) {
    test(`stays: ${text.slice(0, 60)}`, () => {
      assert.equal(redactSecrets(text).text, text);
    });
  }

  test("hex of any case, and base64 of printable text, is never a bare key", () => {
    const rng = makeRng(7);
    for (let i = 0; i < 2000; i++) {
      const bytes = Buffer.alloc(30);
      for (let j = 0; j < 30; j++) bytes[j] = 32 + Math.floor(rng() * 95);
      assert.equal(looksLikeBareKey(bytes.toString("base64")), false, bytes.toString());
      const hex = createHash("sha1").update(String(i)).digest("hex");
      assert.equal(looksLikeBareKey(hex), false);
      assert.equal(looksLikeBareKey(hex.toUpperCase()), false);
    }
  });
});
