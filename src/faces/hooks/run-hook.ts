import fs from "node:fs";
import type { ClaudeEnv } from "../../ops/claude-files.ts";
import type { OpsEnv } from "../../ops/context.ts";
import type { SyncWait } from "./background-sync.ts";
import { type HookPayload, parseHookPayload } from "../../core/capture/hook-input.ts";
import { HOOK_EVENT_NAMES, type HookEvent } from "../../core/claude/settings.ts";
import { isMemsyncError } from "../../core/errors.ts";
import { asReadOnly, storeWriteRefusal } from "../../store/read-only.ts";
import { asksAboutPast } from "./past-work.ts";
import { hasPending, savePending, takePending } from "./pending.ts";
import { failed, type HookReply, withContext } from "./reply.ts";
import { mark } from "../../runtime/cold-trace.ts";

// `memsync hook <Event>`: Claude Code runs it with the event's JSON on standard input.
// - SessionStart: the project's recent decisions as context; a pull starts in the background.
// - UserPromptSubmit: the prompt is captured (decisions, preferences, problems...); a substantive
//   prompt (or one asking about earlier work) gets the memories that pass recall's relevance
//   floor as context, recalled before the prompt's own capture so it never gets itself back.
// - PreCompact: pending changes committed locally (no network), so nothing rides on the session.
// - Stop: after a turn, a sync bounded in time (at most every few minutes); SessionEnd: a sync.
// - Stop, SubagentStop: decisions the assistant's last message states explicitly are held until
//   the user's next prompt: stored if it accepts them ("ok, go ahead"), dropped otherwise.
// - SubagentStart: the project's decisions and preferences (and global rules) as the subagent's context.
// A hook never breaks the session: whatever fails, it exits 0 and says why in systemMessage.
// On a store this process may only read (a read-only mount into a sandbox, another user's files)
// the hooks recall and inject as usual and write nothing: no capture, no held decisions, no sync
// or commit. SessionStart says so once, in a systemMessage; the prompts after it stay quiet, as a
// line per prompt about a mount the user chose would only be noise.


export interface HookRun {
  env: OpsEnv;
  claude: ClaudeEnv;
  cwd: string;
  /** How to run this memsync as a process (for the background sync). */
  self: string[];
  /** Also keep the project's MEMORY.md section current at Stop and SessionEnd. */
  memoryMd: boolean;
  /** Time a sync may hold the hook, in ms. */
  syncWaitMs?: number;
  /** The project, named by the caller (a server: the agent's folders are not on this machine). */
  project?: string;
  /** How a sync starts (default: a memsync process, see background-sync.ts; a server runs its own). */
  startSync?: (verb: "sync" | "pull", waitMs: number) => Promise<SyncWait>;
  /**
   * Answer only what writes nothing (the warm hook server, warm/server.ts): a prompt that would
   * store something (a capture, accepted decisions, a new store) throws WritesNeeded before its
   * first write, and the hook's own process runs it. A server killed mid-request then never leaves
   * a capture half-decided between it and the client.
   */
  readOnly?: boolean;
}

/** A read-only run (HookRun.readOnly) reached a write: nothing was changed; run it in-process. */
export class WritesNeeded extends Error {
  constructor(what: string) {
    super(`a read-only hook run would write (${what})`);
  }
}

/** A Stop hook runs after every turn: sync at most this often. */
const STOP_SYNC_EVERY_S = 300;
const RECALL_BUDGET = 4_000;
/**
 * Matches counted up to this many: the hook shows only the block, whose "more" line counts the
 * ranked matches, not this total (the CLI counts to 1,001). 1 asks only whether any match passes
 * the filter, which past 1,000 matches one common word's count tells (ops/recall.ts); a count to
 * 101 joined ~700 matches to their memories at 10k, a project's share being small.
 */
const RECALL_COUNT_UP_TO = 1;

function storeExists(root: string): boolean {
  return fs.existsSync(`${root}/.meta.json`);
}

/** The store is one this process may only read (access(2); a store that turns out so anyway is caught by unlessReadOnly). */
function readOnly(root: string): boolean {
  return storeWriteRefusal(root) !== null;
}

/** A write a hook makes on its own account, skipped quietly (fallback) when the store turns out read-only. */
async function unlessReadOnly<T>(root: string, fn: () => T | Promise<T>, fallback: T): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    const refused = isMemsyncError(e) ? e : asReadOnly(e, root);
    if (isMemsyncError(refused) && refused.code === "read_only") return fallback;
    throw e;
  }
}

const READ_ONLY_NOTE = (root: string) => `memsync: the store at ${root} is read-only here: memories are recalled from it; nothing is captured, committed or synced this session`;

function hasRemote(root: string): boolean {
  try {
    return /\[remote "origin"\][^[]*\burl\s*=/.test(fs.readFileSync(`${root}/.git/config`, "utf8"));
  } catch {
    return false;
  }
}

export async function runHook(event: string, stdin: string, run: HookRun): Promise<HookReply> {
  const input = parseHookPayload(stdin);
  if (!input) return failed("the hook input was not Claude Code's hook JSON; nothing done");
  const name = (HOOK_EVENT_NAMES as readonly string[]).includes(event) ? (event as HookEvent) : null;
  if (!name) return failed(`unknown hook event ${JSON.stringify(event.slice(0, 40))} (memsync answers ${HOOK_EVENT_NAMES.join(", ")})`);
  const cwd = input.cwd ?? run.cwd;
  switch (name) {
    case "SessionStart":
      return sessionStart(input, cwd, run);
    case "UserPromptSubmit":
      return promptSubmit(input, cwd, run);
    case "PreCompact":
      return preCompact(run);
    case "Stop":
      await holdAssistantDecisions(input, run, "Stop");
      return syncAfter("Stop", cwd, run);
    case "SubagentStop":
      await holdAssistantDecisions(input, run, "SubagentStop");
      return { suppressOutput: true };
    case "SubagentStart":
      return subagentStart(cwd, run);
    case "SessionEnd":
      return syncAfter("SessionEnd", cwd, run);
  }
}

async function project(cwd: string, run: HookRun): Promise<string | null> {
  if (run.project !== undefined) return run.project;
  const { projectOf } = await import("../../ops/project.ts");
  return projectOf({ cwd: run.claude.projectDir ?? cwd });
}

// background-sync loads node:child_process: only the events that sync pay for it
async function syncWith(run: HookRun, verb: "sync" | "pull", waitMs: number): Promise<SyncWait> {
  if (run.startSync) return run.startSync(verb, waitMs);
  const { startSync } = await import("./background-sync.ts");
  return startSync(run.env.storeRoot, run.self, verb, waitMs);
}

async function sessionStart(input: HookPayload, cwd: string, run: HookRun): Promise<HookReply> {
  const root = run.env.storeRoot;
  if (!storeExists(root)) return { suppressOutput: true };
  // other machines' memories arrive for the next prompts; this session does not wait for them
  if (hasRemote(root) && input.source !== "compact" && !readOnly(root)) await unlessReadOnly(root, () => syncWith(run, "pull", 0), { state: "skipped" } as SyncWait);
  const name = await project(cwd, run);
  const [{ withStore }, { projectContext, globalContext }] = await Promise.all([import("../../ops/context.ts"), import("../../ops/project-context.ts")]);
  let readOnlyStore = false;
  // outside any repository there is no project, but the user's global rules still apply
  const text = await withStore(run.env, async (store) => {
    readOnlyStore = store.readOnly;
    return name ? (await projectContext(store, { project: name })).text : globalContext(store);
  });
  // said once a session (not again after a compaction), not on every prompt
  return withContext("SessionStart", text, readOnlyStore && input.source !== "compact" ? { systemMessage: READ_ONLY_NOTE(root) } : {});
}

/** Stop, SubagentStop: the explicit decisions of the assistant's last message, held for the user's answer. */
async function holdAssistantDecisions(input: HookPayload, run: HookRun, from: string): Promise<void> {
  const message = input.lastAssistantMessage;
  const root = run.env.storeRoot;
  // a read-only store never captures them: nothing to hold
  if (!message || !storeExists(root) || readOnly(root)) return;
  const { explicitDecisions } = await import("../../core/capture/assistant.ts");
  const sentences = explicitDecisions(message);
  if (sentences.length > 0) await unlessReadOnly(root, () => savePending(root, input.sessionId, { at: Date.now(), sentences, from }), false);
}

async function subagentStart(cwd: string, run: HookRun): Promise<HookReply> {
  if (!storeExists(run.env.storeRoot)) return { suppressOutput: true };
  const name = await project(cwd, run);
  const [{ withStore }, { projectContext, globalContext }] = await Promise.all([import("../../ops/context.ts"), import("../../ops/project-context.ts")]);
  // a subagent gets what the project decided (and the user's global rules), not a list of its latest facts
  const text = await withStore(run.env, async (store) => (name ? (await projectContext(store, { project: name, decisionsOnly: true })).text : globalContext(store)));
  return withContext("SubagentStart", text);
}

async function promptSubmit(input: HookPayload, cwd: string, run: HookRun): Promise<HookReply> {
  const prompt = input.prompt ?? "";
  if (prompt.trim() === "") return { suppressOutput: true };
  // what the assistant decided last turn, if this prompt accepts it: stored after this prompt's
  // recall, as the prompt's own capture is, so the agent is not handed back what it just said
  // (a store this process may only read is recalled from, never captured to)
  const root = run.env.storeRoot;
  const exists = storeExists(root);
  const writable = !exists || !readOnly(root);
  if (run.readOnly && exists && writable && hasPending(root, input.sessionId)) throw new WritesNeeded("held decisions");
  const held = exists && writable ? takePending(root, input.sessionId) : null;
  const accepted = held && (await import("../../core/capture/assistant.ts")).acceptsPrevious(prompt) ? held : null;
  mark("payload, store, pending");
  const keepAccepted = async (store?: import("../../store/store.ts").Store): Promise<string | null> => {
    if (!accepted) return null;
    if (store) return store.readOnly ? null : captureAccepted(store, accepted.sentences, accepted.from, input, cwd, run);
    const { withStore } = await import("../../ops/context.ts");
    return withStore(run.env, (s) => captureAccepted(s, accepted.sentences, accepted.from, input, cwd, run));
  };
  // a prompt that states nothing new loads no record building (the schemas, ids, redaction):
  // each module below is loaded only by what this prompt needs
  const [{ extractCaptures }, { recallTerms, substantive }] = await Promise.all([import("../../core/capture/extract.ts"), import("../../core/recall-rank.ts")]);
  // any prompt with something to look for gets what fits it (the relevance floor keeps the rest
  // out); a short reply ("yes, go on") only when it asks about earlier work
  mark("extract.ts, recall-rank.ts modules");
  const terms = recallTerms(prompt);
  mark("recallTerms");
  const recalls = asksAboutPast(prompt) || substantive(terms);
  const extraction = extractCaptures(prompt);
  mark("asksAboutPast, substantive, extractCaptures");
  const captures = writable && extraction.captures.length > 0;
  if (run.readOnly && captures) throw new WritesNeeded("a capture");
  // nothing to look for and nothing to keep: the Store's open would only open and close the index
  // (a recovery it would start waits for the next command's open, as it would with no hook at all)
  if (!recalls && !captures) {
    const note = await keepAccepted();
    return note ? { systemMessage: `memsync: ${note}` } : { suppressOutput: true };
  }
  const name = await project(cwd, run);
  mark("project");
  if (!storeExists(run.env.storeRoot)) {
    // no store yet: nothing to recall, and a prompt with nothing worth keeping makes none
    if (!captures) return { suppressOutput: true };
    await (await import("../../ops/init.ts")).ensureStore(run.env);
  }
  // outside any repository (no project): memories of no project, others only on a strong match
  const recallOpts = { query: prompt, terms, budget: RECALL_BUDGET, countUpTo: RECALL_COUNT_UP_TO, project: name };
  const settledTold = { memoryNotCurrent: false };
  if (recalls && !captures && !accepted) {
    // nothing to write: a settled index answers without the Store (null: the Store's path below)
    const settledModule = await import("../../ops/recall-settled.ts");
    mark("recall-settled modules");
    const found = await settledModule.recallSettled(run.env, recallOpts, settledTold);
    if (found) return found.text ? withContext("UserPromptSubmit", found.text) : { suppressOutput: true };
  }
  const [{ withStore }, recallOps, captureOps] = await Promise.all([
    import("../../ops/context.ts"),
    import("../../ops/recall.ts"),
    captures ? import("../../ops/capture.ts") : null,
  ]);
  return withStore(run.env, async (store) => {
    // recall first: the memories this very prompt states are not "earlier work"
    const found = recalls ? await recallOps.recall(store, recallOpts, settledTold.memoryNotCurrent) : null;
    const acceptedNote = await keepAccepted(store);
    const captured = store.readOnly ? null : await captureOps?.captureText(store, run.env, prompt, { project: name, source: "claude-code:UserPromptSubmit", session: input.sessionId, agent: "claude-code" }, extraction);
    const note = (captured ? await keepMemoryMd(store, captured.stored.map((x) => x.memory), name, cwd, run) : null) ?? acceptedNote;
    const told = note ? { systemMessage: `memsync: ${note}` } : {};
    if (found && found.text) return withContext("UserPromptSubmit", found.text, told);
    return note ? told : { suppressOutput: true };
  });
}

/** The assistant's decisions the user accepted, stored as the user's own capture would be. */
async function captureAccepted(store: import("../../store/store.ts").Store, sentences: readonly string[], from: string, input: HookPayload, cwd: string, run: HookRun): Promise<string | null> {
  const [{ extractCaptures }, { captureText }] = await Promise.all([import("../../core/capture/extract.ts"), import("../../ops/capture.ts")]);
  const name = await project(cwd, run);
  const text = sentences.join("\n");
  const extraction = extractCaptures(text);
  if (extraction.captures.length === 0) return null;
  const out = await captureText(store, run.env, text, { project: name, source: `claude-code:${from}`, session: input.sessionId, agent: "claude-code" }, extraction);
  return keepMemoryMd(store, out.stored.map((x) => x.memory), name, cwd, run);
}

/**
 * MEMORY.md kept current without a flag: after a capture that stored a line of its section (a
 * confident decision or preference), the section is rewritten (and only written if it changed).
 * Not for a server's hooks: the agent's folders, and its MEMORY.md, are on another machine.
 */
async function keepMemoryMd(store: import("../../store/store.ts").Store, stored: readonly import("../../core/model/memory.ts").Memory[], name: string | null, cwd: string, run: HookRun): Promise<string | null> {
  if (!name || run.project !== undefined || stored.length === 0) return null;
  const { belongsInMemoryMd, exportMemoryMd } = await import("../../ops/memory-md.ts");
  if (!stored.some(belongsInMemoryMd)) return null;
  try {
    await exportMemoryMd(store, { project: name, cwd, claude: run.claude });
    return null;
  } catch (e) {
    // the memory is stored; only Claude Code's copy of it is behind
    return `MEMORY.md not updated (${e instanceof Error ? e.message : String(e)}); memsync export memory-md retries`;
  }
}

async function preCompact(run: HookRun): Promise<HookReply> {
  const root = run.env.storeRoot;
  if (!storeExists(root) || !fs.existsSync(`${root}/.git`) || readOnly(root)) return { suppressOutput: true };
  const [{ withStore }, { commitStore }] = await Promise.all([import("../../ops/context.ts"), import("../../ops/commit.ts")]);
  await unlessReadOnly(root, () => withStore(run.env, (store) => commitStore(store, run.env)), null);
  return { suppressOutput: true };
}

async function syncAfter(event: "Stop" | "SessionEnd", cwd: string, run: HookRun): Promise<HookReply> {
  const root = run.env.storeRoot;
  if (!storeExists(root)) return { suppressOutput: true };
  const notes: string[] = [];
  if (run.memoryMd) {
    const name = await project(cwd, run);
    if (name) {
      const { exportMemoryMd } = await import("../../ops/memory-md.ts");
      const { withStore } = await import("../../ops/context.ts");
      await withStore(run.env, (store) => exportMemoryMd(store, { project: name, cwd, claude: run.claude }));
    }
  }
  if (!hasRemote(root) || readOnly(root)) return { suppressOutput: true };
  if (event === "Stop" && (await import("./background-sync.ts")).sinceLastSync(root) < STOP_SYNC_EVERY_S) return { suppressOutput: true };
  const waited = await unlessReadOnly(root, () => syncWith(run, "sync", run.syncWaitMs ?? (event === "Stop" ? 4_000 : 8_000)), { state: "skipped" } as SyncWait);
  if (waited.state === "finished" && !waited.ok) notes.push(`sync failed (${waited.detail || "see .memsync/hook-sync.log"}); your memories are kept and the next sync retries`);
  return notes.length ? { systemMessage: `memsync: ${notes.join("; ")}` } : { suppressOutput: true };
}
