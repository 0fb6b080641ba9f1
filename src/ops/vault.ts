import fs from "node:fs";
import path from "node:path";
import { conflict, unavailable } from "../core/errors.ts";
import type { Memory } from "../core/model/memory.ts";
import { noteBelongsTo, noteFileName, noteText } from "../core/vault-note.ts";
import { randomHex } from "../store/atomic-write.ts";
import { nodeFs } from "../store/fs-port.ts";

// Writing promoted memories into the long-term vault, a folder of Markdown notes outside the
// store (machine-local: its path is never in synced settings). A file memsync did not write for
// this memory is never overwritten: the name moves on to -2, -3... A note left by an earlier,
// interrupted promotion of the same memory (its front matter names the id) is reused.

const MAX_ATTEMPTS = 100;

function readIfFile(p: string): string | null {
  try {
    return fs.statSync(p).isFile() ? fs.readFileSync(p, "utf8") : "";
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return null;
    throw e;
  }
}

/** Make sure the vault folder exists (created if missing); refused before anything else is done. */
export function prepareVault(vault: string): void {
  try {
    fs.mkdirSync(vault, { recursive: true });
    if (!fs.statSync(vault).isDirectory()) throw Object.assign(new Error("not a folder"), { code: "ENOTDIR" });
  } catch (e) {
    throw unavailable(`cannot create the vault folder ${vault}: ${(e as { code?: string }).code ?? String(e)}`);
  }
}

/** The name a memory's note gets (or has) in this vault; null vault: as in an empty one. */
export function plannedNoteName(vault: string | null, m: Memory): string {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const name = noteFileName(m, attempt);
    if (vault === null) return name;
    const existing = readIfFile(path.join(vault, name));
    if (existing === null || noteBelongsTo(existing, m.id)) return name;
  }
  throw conflict(`no free note name for memory ${m.id} in ${vault}`);
}

export interface WrittenNote {
  path: string;
  /** A note an earlier promotion of this memory left was rewritten in place. */
  reused: boolean;
}

/**
 * Write the memory's note durably (fsynced, then its folder) and return its path. New names are
 * taken with a hard link from a complete temp file, which fails rather than replace anything that
 * appeared meanwhile; where the file system has no hard links, an exclusive create does the same.
 */
export function writeVaultNote(vault: string, m: Memory, promotedAt: number): WrittenNote {
  prepareVault(vault);
  const text = noteText(m, promotedAt);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const target = path.join(vault, noteFileName(m, attempt));
    const existing = readIfFile(target);
    const tmp = path.join(vault, `.${path.basename(target)}.${randomHex(6)}.tmp`);
    if (existing !== null) {
      if (!noteBelongsTo(existing, m.id)) continue; // someone else's file: never overwritten
      nodeFs.writeNewDurable(tmp, text);
      fs.renameSync(tmp, target);
      nodeFs.fsyncDir(vault);
      return { path: target, reused: true };
    }
    if (placeNew(tmp, target, text)) {
      nodeFs.fsyncDir(vault);
      return { path: target, reused: false };
    }
  }
  throw conflict(`no free note name for memory ${m.id} in ${vault}`);
}

/** Put a complete new file at target unless something is there; false when something is. */
function placeNew(tmp: string, target: string, text: string): boolean {
  nodeFs.writeNewDurable(tmp, text);
  try {
    fs.linkSync(tmp, target);
    return true;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "EXDEV" && code !== "ENOSYS") throw e;
    try {
      nodeFs.writeNewDurable(target, text);
      return true;
    } catch (e2) {
      if ((e2 as { code?: string }).code === "EEXIST") return false;
      throw e2;
    }
  } finally {
    try {
      fs.unlinkSync(tmp);
    } catch {
      // already gone
    }
  }
}

/**
 * Rewrite a promoted memory's note after its content changed, so the vault shows what the memory
 * now says. Only where the note is on this machine (the vault is machine-local), is a plain file
 * (never through a symlink) and names this memory in its front matter (promoted_to comes from a
 * synced record: it never makes memsync write anywhere else). The path written, or null.
 */
export function refreshVaultNote(m: Memory): string | null {
  const target = m.status === "promoted" ? m.promoted_to : null;
  if (!target || !path.isAbsolute(target) || !target.endsWith(".md")) return null;
  let existing: string;
  try {
    if (!fs.lstatSync(target).isFile()) return null;
    existing = fs.readFileSync(target, "utf8");
  } catch {
    return null; // not on this machine: the machine holding the vault refreshes it on its next update
  }
  const text = noteText(m, m.promoted_at ?? m.updated_at ?? m.created_at);
  if (!noteBelongsTo(existing, m.id) || existing === text) return null;
  const dir = path.dirname(target);
  const tmp = path.join(dir, `.${path.basename(target)}.${randomHex(6)}.tmp`);
  nodeFs.writeNewDurable(tmp, text);
  fs.renameSync(tmp, target);
  nodeFs.fsyncDir(dir);
  return target;
}
