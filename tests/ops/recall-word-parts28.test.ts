import assert from "node:assert/strict";
import { test } from "node:test";
import { recallTerms } from "../../src/core/recall-rank.ts";
import { recall } from "../../src/ops/recall.ts";
import { recallShown } from "../helpers/memory-store.ts";

// A word written in camel case or with digits glued on is one word of the prompt, its parts other
// ways to find it (branch recall28): "rfc9457" finds a memory that writes "RFC 9457", and
// "GitHub" counts once toward the relevance floor, not three times (github, git, hub), so a
// prompt about GitHub Pages is not carried by a memory that names GitHub Actions alone. A name of
// one letter joined by a sign ("N+1", "C#") had no word at all.

const T0 = 1_790_000_000;


const TEXTS = [
  "Errors follow RFC 9457 problem details with a stable machine-readable type field.",
  "DNS is on Route 53; the apex domain points at CloudFront.",
  "CI runs on GitHub Actions; the old Jenkins server was shut down in March.",
  "Phone numbers are stored in E.164 format and validated with libphonenumber.",
  "Static assets are served from CloudFront with immutable hashed file names and a one-year max-age.",
  "TypeScript runs in strict mode everywhere, and any is allowed only with a comment saying why.",
  "The orders page made one query per line item; an N+1 query made it take 4 seconds for big orders.",
];

/** What recall shows for the query over TEXTS. */
const shown = (query: string): Promise<string[]> => recallShown(TEXTS, T0, query);

test("a name with digits glued on finds the memory that writes them apart", async () => {
  assert.equal((await shown("RFC9457 errors"))[0], TEXTS[0]);
  assert.equal((await shown("Route53"))[0], TEXTS[1]);
  assert.equal((await shown("E164 numbers"))[0], TEXTS[3]);
});

test("a camel-case word counts once toward the floor: a memory sharing only it does not carry a longer prompt", async () => {
  assert.deepEqual(await shown("set up a GitHub Pages site for my personal blog"), []);
  // written in lower case the prompt was quiet before too; the camel case is the same prompt
  assert.deepEqual(await shown("set up a github pages site for my personal blog"), []);
  // the word itself still finds its memory
  assert.equal((await shown("GitHub Actions runners"))[0], TEXTS[2]);
});

test("the parts of a prompt's longer words are looked for but are not strong words of their own", () => {
  const t = recallTerms("set up a GitHub Pages site");
  assert.deepEqual(t.strong, ["github", "pages", "site"]);
  assert.deepEqual([...(t.parts ?? [])], [["git", "github"], ["hub", "github"]]);
  assert.deepEqual([...(recallTerms("rfc9457").parts ?? [])], [["rfc", "rfc9457"], ["9457", "rfc9457"]]);
  // a version's name is not split, and a part said on its own is a word of its own
  assert.equal(recallTerms("the v2 api").parts, undefined);
  assert.equal(recallTerms("GitHub and git").parts?.has("git"), false);
});

test("a name of one letter joined by a sign is a word of the prompt, found where a memory holds its characters", async () => {
  assert.equal((await shown("N+1"))[0], TEXTS[6]);
  assert.deepEqual([...(recallTerms("an N+1 in c# or c++").joined ?? [])], [["n+1", ["n", "1"]], ["c#", ["c"]], ["c++", ["c"]]]);
  // a stop word ("a", "i") is in every memory: such a name finds nothing
  assert.equal(recallTerms("grade A+").joined, undefined);
  assert.deepEqual(await shown("A+"), []);
});
