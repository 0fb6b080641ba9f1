import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { memsync, newStore, saveMany, tempDir } from "../helpers/env.ts";

// Outside any repository, a prompt that names a project asks about that project: the name's words
// say which project, and its memories seldom repeat them ("Product search runs on Algolia"). Kept
// as words the memory must hold, they left it one of three and under the floor, so "how is search
// done in acme-web" found nothing (branch projects26). Through the compiled binary's hook, at a
// folder that is no repository.

const WEB = "github.com/acme/acme-web";
const BILLING = "github.com/acme/acme-billing";
const HARBOR = "github.com/tidewater/harbor";
const LEDGERLY = "github.com/acme/ledgerly";

function recalled(store: string, cwd: string, prompt: string): string | undefined {
  const input = JSON.stringify({ session_id: "s", hook_event_name: "UserPromptSubmit", cwd, prompt });
  const r = memsync(["--store", store, "hook", "UserPromptSubmit"], { input, env: { CLAUDE_PROJECT_DIR: cwd } });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).hookSpecificOutput?.additionalContext as string | undefined;
}

function projectsStore(): string {
  const store = newStore();
  saveMany(store, [
    { content: "Product search runs on Algolia; the index is rebuilt nightly from the catalog export", type: "decision", project: WEB },
    { content: "The storefront ships in English, German and French", type: "fact", project: WEB },
    { content: "Invoice numbers are sequential per legal entity and never reused", type: "decision", project: BILLING },
    { content: "Dunning emails go out on days 3, 7 and 14 after a failed charge", type: "fact", project: BILLING },
    { content: "The registry search pages through image tags one hundred at a time", type: "fact", project: HARBOR },
    { content: "Webhooks are retried with exponential backoff for up to a day", type: "decision", project: LEDGERLY },
  ]);
  return store;
}

describe("recall27: a project named outside any repository", () => {
  test("naming a project finds its memories that do not repeat the name, and not another project's", () => {
    const store = projectsStore();
    const folder = tempDir();
    const search = recalled(store, folder, "how is search done in acme-web") ?? "";
    assert.match(search, /Algolia/, "the named project's memory");
    assert.doesNotMatch(search, /registry search/, `another project sharing one word: ${search}`);
    // two projects of one organisation: the one named, not its sibling
    const invoices = recalled(store, folder, "are invoice numbers ever reused in acme-billing?") ?? "";
    assert.match(invoices, /sequential per legal entity/);
    assert.doesNotMatch(invoices, /Algolia|storefront/);
    // a one-word name that is no everyday word names its project too
    assert.match(recalled(store, folder, "how does ledgerly retry webhooks") ?? "", /exponential backoff/);
  });

  test("a named project's name alone carries nothing: an unrelated prompt that names it stays quiet", () => {
    const store = projectsStore();
    const folder = tempDir();
    assert.equal(recalled(store, folder, "write a poem for the acme-web launch party"), undefined);
    assert.equal(recalled(store, folder, "book a table for the acme-billing team dinner"), undefined);
  });
});
