import assert from "node:assert/strict";
import { test } from "node:test";
import { memsync, newStore, saveMany, tempDir } from "../helpers/env.ts";

// A prompt that reports trouble gets what went wrong and what fixed it first, through the compiled
// binary's hook: recall reads the prompt with cues.ts isTrouble, which a cold hook searches as
// TROUBLE's alternatives in groups (core/capture/pattern-groups.ts). The first prompt matches an
// early group, the second only the last one (without it the shorter decision comes first); a
// question about the choice keeps the decision first.

function context(store: string, prompt: string): string {
  const input = JSON.stringify({ session_id: "s", hook_event_name: "UserPromptSubmit", cwd: tempDir(), prompt });
  const r = memsync(["--store", store, "hook", "UserPromptSubmit"], { input });
  assert.equal(r.code, 0, r.stderr);
  const ctx = JSON.parse(r.stdout).hookSpecificOutput?.additionalContext as string | undefined;
  assert.ok(ctx, `context for ${JSON.stringify(prompt)}: ${r.stdout}`);
  return ctx;
}

test("the hook ranks a problem before a newer decision with the same words when the prompt reports trouble, however TROUBLE matches", () => {
  const store = newStore();
  saveMany(store, [
    { content: "The dashboard bundle on the CDN cache was imported whole for one function, lodash and moment included, so every page paid for it.", type: "problem" },
    { content: "The dashboard bundle is served from the CDN cache.", type: "decision" },
  ]);
  const order = (ctx: string): [number, number] => [ctx.indexOf("lodash"), ctx.indexOf("is served from")];
  for (const prompt of ["why is the dashboard bundle too big for the CDN cache?", "why does the dashboard bundle evict the CDN cache?"]) {
    const ctx = context(store, prompt);
    const [problem, decision] = order(ctx);
    assert.ok(problem >= 0 && decision >= 0 && problem < decision, `${prompt}: the problem first\n${ctx}`);
  }
  const [problem, decision] = order(context(store, "how is the dashboard bundle served from the CDN cache?"));
  assert.ok(problem >= 0 && decision >= 0 && decision < problem, "a question about the choice: the decision first");
});
