import fs from "node:fs";
import path from "node:path";
import { LOCAL_DIR } from "../../store/layout.ts";

// Decisions the assistant stated at the end of a turn, waiting for the user's next prompt to
// accept them (core/capture/assistant.ts). One small file per session under the store's local
// folder (never synced); a session id becomes a file name only when it is a plain token.

/** A candidate older than this is dropped unread: the conversation has moved on. */
const PENDING_MAX_AGE_MS = 60 * 60 * 1000;
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

export interface Pending {
  at: number;
  sentences: string[];
  /** Which hook saw them: Stop or SubagentStop. */
  from: string;
}

function fileOf(root: string, session: string | null): string | null {
  return session && SESSION_ID.test(session) ? path.join(root, LOCAL_DIR, "pending", `${session}.json`) : null;
}

export function savePending(root: string, session: string | null, pending: Pending): boolean {
  const file = fileOf(root, session);
  if (!file) return false;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // a subagent's decisions and the main turn's add up until the user answers
  const earlier = takePending(root, session);
  const sentences = [...new Set([...(earlier?.sentences ?? []), ...pending.sentences])].slice(-10);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ ...pending, sentences }));
  fs.renameSync(tmp, file);
  return true;
}

/** Whether the session has a candidates' file (read or not: takePending decides, and removes it). */
export function hasPending(root: string, session: string | null): boolean {
  const file = fileOf(root, session);
  return file !== null && fs.existsSync(file);
}

/** The session's candidates (removed: they are decided on now, either way), or null. */
export function takePending(root: string, session: string | null, now = Date.now()): Pending | null {
  const file = fileOf(root, session);
  if (!file || !fs.existsSync(file)) return null;
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    value = null;
  }
  try {
    fs.rmSync(file, { force: true });
  } catch {
    // a store this process may only read: the candidates are read, and no capture follows anyway
  }
  const p = value as Pending | null;
  if (!p || typeof p.at !== "number" || !Array.isArray(p.sentences) || now - p.at > PENDING_MAX_AGE_MS) return null;
  return { at: p.at, from: String(p.from), sentences: p.sentences.filter((s): s is string => typeof s === "string").slice(0, 10) };
}
