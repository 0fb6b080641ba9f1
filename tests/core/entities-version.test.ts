import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { findMentions } from "../../src/core/capture/entities.ts";
import { fingerprintOf } from "../../src/core/capture/extract.ts";
import { queryConcepts } from "../../src/core/recall-concepts.ts";

// A name that is also a common word ("next", "go", "spring", "express") counts beside a version
// of it, and only there; "ES module(s)" is esm, "ES" alone elasticsearch only beside search.

const names = (t: string) => findMentions(t).map((m) => m.name);

describe("a known name beside a version", () => {
  test("'next' names next.js after a version verb and before a version, or written with one", () => {
    for (const t of ["Pin Next to 14.2", "bump next to 15", "We should upgrade Next to 15 before launch.", "Upgrade from Next 13 to Next 14", "We pinned Next at 14.2.3 for now.", "Next 15 is out", "the Next 14 app router is slow"]) {
      assert.deepEqual(names(t), ["next.js"], t);
    }
    assert.deepEqual(names("Upgrade Next to 15 and React to 19"), ["next.js", "react"]);
    // a strong context: what a tool verb or a choice names ("use", "built with", "settled on")
    assert.deepEqual(names("We use Next for the marketing site"), ["next.js"]);
    assert.deepEqual(names("The site is built with Next and Tailwind"), ["next.js", "tailwind-css"]);
    assert.deepEqual(names("We settled on Next"), ["next.js"]);
    // or a part only that framework has, right after the capitalised name
    assert.deepEqual(names("We moved auth into Next middleware"), ["next.js"]);
    assert.deepEqual(names("the Next app router caches too much"), ["next.js"]);
  });

  test("'next' as a word is no entity: the next release, next week, a count of days or items", () => {
    for (const t of ["the next release ships Friday", "next week we pin it", "Next, bump the SDK", "over the next 14 days", "Next 14 days of freeze", "the Next 2 or 3 days", "Next 2-3 weeks", "Next 3 items need review", "move next to 15 minutes later", "next up: pin it to 3.1", "Next steps: bump the SDK to 2.0", "what's next to do", "the next middleware in the chain", "Next: api routes for the admin"]) {
      assert.deepEqual(names(t), [], t);
    }
  });

  test("names that are words (go, spring, express, swift) count beside a version, still not as words", () => {
    assert.deepEqual(names("bump go to 1.22"), ["go"]);
    assert.deepEqual(names("Upgrade Go to 1.22 in CI"), ["go", "ci/cd"]);
    assert.deepEqual(names("upgrade spring to 6.1"), ["spring"]);
    assert.deepEqual(names("bump express to 5.0"), ["express"]);
    assert.deepEqual(names("we upgraded swift to 5.9"), ["swift"]);
    for (const t of ["let's go to 1.22 of the SDK", "we go 2 levels deep", "the spring 2025 release", "express 5 concerns to the team", "go to 3 meetings", "in spring we move to 2.0"]) {
      assert.deepEqual(names(t), [], t);
    }
  });

  test("'next' stays out of statement fingerprints and recall's concepts (it is the word there)", () => {
    assert.equal(fingerprintOf("decision", "Ship the next release on Friday"), "decision:ship next release on friday");
    // a query about the frontend framework looks for next.js in memories, never the word "next"
    const terms = queryConcepts("which frontend framework do we use").flatMap((c) => c.terms);
    assert.ok(terms.includes("next js") || terms.includes("next.js") || terms.includes("nextjs"), JSON.stringify(terms));
    assert.ok(!terms.includes("next"), JSON.stringify(terms));
  });
});

describe("ES: modules are esm, search is elasticsearch", () => {
  test("ES module(s), ESM -> esm; ES beside search -> elasticsearch; ES otherwise nothing", () => {
    assert.deepEqual(names("We moved to ES module imports."), ["esm"]);
    assert.deepEqual(names("Convert every file to an ES module"), ["esm"]);
    assert.deepEqual(names("ESM only from v3"), ["esm"]);
    assert.deepEqual(names("ES modules, and search with Algolia"), ["esm", "algolia"]);
    assert.deepEqual(names("ES is our search index"), ["elasticsearch"]);
    assert.deepEqual(names("The ES cluster needs more shards"), ["elasticsearch", "sharding"]);
    assert.deepEqual(names("We ship the ES locale first"), []);
    assert.deepEqual(names("We switched to ES6 modules"), ["esm"]);
    assert.deepEqual(names("Use ES imports instead of require"), ["esm"]);
    // "Elastic" (the company) is elasticsearch beside search; elsewhere what it was
    assert.deepEqual(names("We use Elastic for search"), ["elasticsearch"]);
    assert.deepEqual(names("We use Elastic for logs"), ["elastic"]);
    assert.deepEqual(names("elastic scaling of the search workers"), []);
  });

  test("a word that is a key of every object ('constructor') is a plain word, not a crash", () => {
    assert.deepEqual(names("We decided the constructor should validate its input"), []);
    assert.deepEqual(names("toString, valueOf and hasOwnProperty of the ES client"), ["valueof"]);
  });
});

describe("word-like names in a strong context", () => {
  test("a name that needs a capital counts lowercase right before a package word", () => {
    assert.deepEqual(names("the build fails for the sharp package on arm64"), ["sharp"]);
    assert.deepEqual(names("the go module proxy is down"), ["go"]);
    for (const t of ["a sharp drop in latency", "Where do shared hooks go — packages/hooks", "we go package by package"]) assert.deepEqual(names(t), [], t);
  });

  test("'Rabbit' beside queue talk is rabbitmq, elsewhere a word; CRA and React Email are their own things", () => {
    assert.deepEqual(names("less ops work than running Rabbit for the queue"), ["rabbitmq"]);
    assert.deepEqual(names("Rabbit holes cost us the sprint"), []);
    assert.deepEqual(names("Moving the frontend from CRA to Vite"), ["create-react-app", "vite"]);
    assert.deepEqual(names("We render emails with React Email"), ["react-email"]);
  });
});

describe("aliases the tuning sets showed missing", () => {
  test("RN, SES, SSM in capitals; the AWS SDK, Parameter Store and Tailscale by name", () => {
    assert.deepEqual(names("we're moving the mobile app to RN"), ["react-native"]);
    assert.deepEqual(names("All outbound email is routed through SES"), ["amazon-ses"]);
    assert.deepEqual(names("values are read from SSM Parameter Store"), ["aws-ssm"]);
    assert.deepEqual(names("tree-shaking the AWS SDK helped"), ["aws-sdk"]);
    assert.deepEqual(names("the VPN goes away in favour of Tailscale"), ["vpn", "tailscale"]);
    // in lowercase they are other words
    for (const t of ["the rn of the rollout", "ses and sessions", "ssm agent logs"]) assert.deepEqual(names(t), [], t);
  });
});
