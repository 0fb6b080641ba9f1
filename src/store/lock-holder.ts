import fs from "node:fs";
import { commandWord } from "../faces/cli/quick.ts";
import { args } from "../runtime/host.ts";

// What the holder of a write lock is doing, in a small file beside the lock (`<lock>-holder`),
// written by the holder at its heartbeats and changes of phase (never by a short write that
// neither beats nor names a phase), removed when it lets go. A waiter that gives up reads it, so
// its "store busy" says which process held the lock, in which step, for how long: the chaos
// runs' 503s said only that someone had. A holder killed leaves the file: its pid is then dead,
// and the file is not believed.

export interface HolderNote {
  pid: number;
  /** The memsync command it runs ("memsync sync"). */
  command: string;
  phase: string;
  /** Date.now() ms: since when it holds the lock, since when it is in that phase, when it wrote this. */
  held_since: number;
  phase_since: number;
  at: number;
}

export function holderNotePath(lockPath: string): string {
  return `${lockPath}-holder`;
}

/** This process's command, as a note names it. */
export function commandName(): string {
  const verb = commandWord(args());
  return verb ? `memsync ${verb}` : "memsync";
}

export function writeHolderNote(lockPath: string, note: HolderNote): boolean {
  try {
    fs.writeFileSync(holderNotePath(lockPath), JSON.stringify(note));
    return true;
  } catch {
    return false; // a waiter then only says the store is busy
  }
}

export function removeHolderNote(lockPath: string): void {
  try {
    fs.unlinkSync(holderNotePath(lockPath));
  } catch {
    // gone already
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
}

/** The note of a live holder, or null (none, unreadable, or left by a process that is gone). */
export function readHolderNote(lockPath: string): HolderNote | null {
  try {
    const note = JSON.parse(fs.readFileSync(holderNotePath(lockPath), "utf8")) as HolderNote;
    if (!Number.isInteger(note.pid) || typeof note.phase !== "string" || !alive(note.pid)) return null;
    return note;
  } catch {
    return null;
  }
}

/** "held by memsync sync (pid 123) for 20 s, in integrate.absorb for 17 s, last heard from 16 s ago" */
export function describeHolder(note: HolderNote | null, now = Date.now()): string {
  if (!note) return "its holder did not say what it was doing";
  const s = (ms: number) => `${Math.max(0, Math.round(ms / 1000))} s`;
  const who = note.pid === process.pid ? `this process (${note.command}, pid ${note.pid})` : `${note.command} (pid ${note.pid})`;
  return `held by ${who} for ${s(now - note.held_since)}, in ${note.phase} for ${s(now - note.phase_since)}, last heard from ${s(now - note.at)} ago`;
}
