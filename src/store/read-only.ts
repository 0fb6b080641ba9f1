import fs from "node:fs";
import { processAlive } from "../runtime/process-alive.ts";
import { readOnlyStore } from "../core/errors.ts";
import { tempDir } from "../runtime/host.ts";
import { INDEX_FILE, LOCK_FILE } from "./fixed-paths.ts";
import { LOCAL_DIR } from "./layout.ts";

// A store this process may not write: a read-only mount (`docker run -v ~/.memsync:/m:ro`), or
// another user's files. It is still read, with answers equal to the writable store's: the index
// is derived data, so a private copy of it (with its WAL) is opened in a folder of this process's
// own (mkdtemp, 0700), where the quick refresh takes in hand edits made to the record files as it
// would in the store, and removed when the store is closed or the process exits (a killed
// process's copy is removed by the next read-only open). Nothing is ever written to the store.

/** The errors with which a file system refuses this process's writes to a folder. */
const REFUSED = new Set(["EROFS", "EACCES", "EPERM"]);

const codeOf = (e: unknown) => (e as { code?: string }).code ?? "";

/** The folder whose writability decides: the machine-local one (index, lock, journal), else the store's own. */
function decidingFolder(root: string): string {
  return fs.statSync(`${root}/${LOCAL_DIR}`, { throwIfNoEntry: false })?.isDirectory() ? `${root}/${LOCAL_DIR}` : root;
}

/**
 * Why this process may not write into the store (EROFS, EACCES, EPERM), by access(2) on its
 * machine-local folder; null when it may, or when the answer is anything else (a writable store
 * must never be taken for a read-only one). Deno's access() does not see a read-only mount: the
 * probe (storeWriteProbe) tells, after the index failed to open.
 */
export function storeWriteRefusal(root: string): string | null {
  try {
    fs.accessSync(decidingFolder(root), fs.constants.W_OK);
    return null;
  } catch (e) {
    return REFUSED.has(codeOf(e)) ? codeOf(e) : null;
  }
}

/**
 * Whether a file can be made in the store's machine-local folder: a new file made and removed at
 * once. Only after the index failed to open (so a writable store's normal path never writes it);
 * the refusal's code, or null when the file was made (the store is writable: the failure was
 * something else).
 */
export function storeWriteProbe(root: string): string | null {
  const refused = storeWriteRefusal(root);
  if (refused) return refused;
  const probe = `${decidingFolder(root)}/.write-probe.${process.pid}.${Math.random().toString(16).slice(2, 10)}.tmp`;
  try {
    fs.closeSync(fs.openSync(probe, "wx", 0o600));
  } catch (e) {
    return REFUSED.has(codeOf(e)) ? codeOf(e) : null;
  }
  try {
    fs.unlinkSync(probe);
  } catch {
    // a leftover *.tmp is ignored by git and removed by the next writer once old
  }
  return null;
}

/**
 * A write the file system refused inside a store this process may not write (a path the Store's
 * own refusal did not cover: git's files, .meta.json, a sync's lock), as the read-only refusal;
 * anything else as it is. The probe runs only here, on a failure, never on a writable store's path.
 */
export function asReadOnly(e: unknown, root: string): unknown {
  if (!(e instanceof Error)) return e;
  const { code, path } = e as { code?: string; path?: string };
  const refusedHere = code !== undefined && REFUSED.has(code) && (path === undefined || path === root || path.startsWith(`${root}/`));
  const sqliteRefused = /attempt to write a readonly database|SQLITE_READONLY|unable to open database file|SQLITE_CANTOPEN/i.test(e.message);
  if (!refusedHere && !sqliteRefused) return e;
  try {
    return storeWriteProbe(root) ? readOnlyStore(root) : e;
  } catch {
    return e;
  }
}

/** The prefix of a private copy's folder; the process id after it tells whose it is. */
const PREFIX = "memsync-ro-";

/** Folders of this process's copies, removed at exit if a store was not closed (an error, process.exit). */
const live = new Set<string>();
let exitHooked = false;

function removeFolder(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true });
  } catch {
    // gone already, or the system's temp folder refuses: nothing of the store's is there
  }
  live.delete(dir);
}

function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.on("exit", () => {
    for (const dir of [...live]) removeFolder(dir);
  });
  // a one-shot command stopped by a signal: its copies go before it does. A process that handles
  // the signal itself (a server stopping gracefully) is left to do so, and exits through "exit"
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return;
      for (const dir of [...live]) removeFolder(dir);
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    try {
      process.on(signal, onSignal);
    } catch {
      // a runtime without this signal
    }
  }
}


/** Copies whose process died without removing them (SIGKILL): removed by the next read-only open. */
function removeDeadCopies(tmp: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(tmp);
  } catch {
    return;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length).split("-")[0]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || processAlive(pid)) continue;
    const st = fs.lstatSync(`${tmp}/${name}`, { throwIfNoEntry: false });
    if (st?.isDirectory() && (uid === undefined || st.uid === uid)) removeFolder(`${tmp}/${name}`);
  }
}

type Stamp = string;
function stampOf(path: string): Stamp {
  const st = fs.statSync(path, { throwIfNoEntry: false });
  return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : "-";
}

/**
 * The index file and its WAL copied into `dir`; false when no steady copy could be made (a
 * writer elsewhere kept changing them, or they cannot be read): the caller builds the index
 * from the files instead. A copy is kept only when neither file changed while it was taken.
 */
function copyIndex(root: string, dir: string): boolean {
  const from = `${root}/${INDEX_FILE}`;
  const to = `${dir}/index.db`;
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = `${stampOf(from)} ${stampOf(`${from}-wal`)}`;
    if (before.startsWith("- ")) return false;
    try {
      for (const suffix of ["", "-wal"]) {
        if (suffix && !fs.existsSync(`${from}${suffix}`)) continue;
        fs.copyFileSync(`${from}${suffix}`, `${to}${suffix}`);
        // the copy keeps the original's mode: a read-only one would refuse the refresh's writes
        fs.chmodSync(`${to}${suffix}`, 0o600);
      }
    } catch {
      for (const suffix of ["", "-wal"]) fs.rmSync(`${to}${suffix}`, { force: true });
      return false;
    }
    if (`${stampOf(from)} ${stampOf(`${from}-wal`)}` === before) return true;
    for (const suffix of ["", "-wal"]) fs.rmSync(`${to}${suffix}`, { force: true });
  }
  return false;
}

export class PrivateIndex {
  private constructor(
    /** The private folder (mkdtemp: mode 0700, this process's alone). */
    readonly dir: string,
    /** Whether the store's index was copied (else the index there is built from the files). */
    readonly copied: boolean,
  ) {}

  /** A private folder holding a copy of the store's index (when one can be taken steadily). */
  static make(root: string): PrivateIndex {
    // node:os through host.ts, loaded when first asked: every hook imports this module (its write check), few take a private copy
    const tmp = tempDir();
    removeDeadCopies(tmp);
    hookExit();
    const dir = fs.mkdtempSync(`${tmp}/${PREFIX}${process.pid}-`);
    live.add(dir);
    try {
      return new PrivateIndex(dir, copyIndex(root, dir));
    } catch (e) {
      removeFolder(dir);
      throw e;
    }
  }

  get indexPath(): string {
    return `${this.dir}/index.db`;
  }

  /** The write lock's file: the private index has no other writer, but the Store's steps take one. */
  get lockPath(): string {
    return `${this.dir}/${LOCK_FILE.slice(LOCK_FILE.lastIndexOf("/") + 1)}`;
  }

  /** Remove the folder and everything in it (the index, its WAL and side files, the lock). */
  remove(): void {
    removeFolder(this.dir);
  }
}
