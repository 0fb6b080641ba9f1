import { parseJsonText } from "../core/model/validate.ts";
import { randomHex, writeAtomic } from "./atomic-write.ts";
import type { StoreFs } from "./fs-port.ts";
import { LOCAL_DIR } from "./layout.ts";

// Which machine this store copy lives on. Machine-local (under .memsync/, never synced): each
// clone of a store gets its own id, named after the host plus a random tail because VPS boxes
// often share a hostname. MEMSYNC_MACHINE overrides the name.
//
// The replica id names this checkout's stream in the counts (core/counters.ts). Two checkouts
// must never share one, whatever they are called, so no setting overrides it; it is made once
// per checkout and made anew when the .memsync folder is not the one it was made in (a copied
// store folder is another checkout). A new id is always safe: it only starts a new stream.

const FILE = "machine.json";

interface MachineFile {
  machine_id?: unknown;
  replica?: unknown;
  /** Inode of the .memsync folder the replica id was made in. */
  replica_dir?: unknown;
}

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9.-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "machine";
}

function readFile(fs: StoreFs, path: string): MachineFile {
  if (!fs.stat(path)?.isFile) return {};
  const parsed = parseJsonText(fs.readText(path));
  return parsed.ok && typeof parsed.value === "object" && parsed.value !== null && !Array.isArray(parsed.value) ? (parsed.value as MachineFile) : {};
}

/**
 * The host name, or how to look it up: it names an id only when one is made (the first write of a
 * checkout), and a process's first look-up loads node:os (~0.3 ms of a cold save, issue 16).
 */
export type HostName = string | (() => string);

const nameOf = (host: HostName) => (typeof host === "string" ? host : host());

function local(fs: StoreFs, root: string, hostName: HostName, override: string | undefined): { machine_id: string; replica: string } {
  const dir = `${root}/${LOCAL_DIR}`;
  const path = `${dir}/${FILE}`;
  const file = readFile(fs, path);
  const ino = fs.stat(dir)?.ino ?? 0;
  const machine_id = typeof file.machine_id === "string" && file.machine_id ? file.machine_id : `${slug(nameOf(hostName))}-${randomHex(3)}`;
  // an inode of 0 means the file system does not say: keep the id
  const sameDir = ino === 0 || file.replica_dir === undefined || file.replica_dir === ino;
  const keep = typeof file.replica === "string" && /^[a-z0-9.-]{1,60}$/.test(file.replica) && sameDir;
  const replica = keep ? (file.replica as string) : `${slug(override ?? nameOf(hostName))}.${randomHex(4)}`;
  if (machine_id !== file.machine_id || replica !== file.replica || (ino !== 0 && file.replica_dir !== ino)) {
    try {
      fs.mkdirp(dir);
      const next = { ...file, machine_id, replica, replica_dir: fs.stat(dir)?.ino ?? 0 };
      writeAtomic(fs, dir, FILE, `${JSON.stringify(next, null, 2)}\n`);
    } catch (e) {
      // a store this process may only read (a copy mounted read-only): the ids serve its reads
      // (a preview naming this machine) unkept; a write is refused before it needs them
      if (!["EROFS", "EACCES", "EPERM"].includes((e as { code?: string }).code ?? "")) throw e;
    }
  }
  return { machine_id, replica };
}

export function machineId(fs: StoreFs, root: string, hostName: HostName, override?: string): string {
  if (override) return slug(override);
  return local(fs, root, hostName, override).machine_id;
}

/**
 * The machine id (machineId) and this checkout's stream name ("<machine>.<8 hex>", made once, never
 * overridden) from one read of machine.json: every write's origin needs both.
 */
export function machineAndReplica(fs: StoreFs, root: string, hostName: HostName, override?: string): { machine: string; replica: string } {
  const ids = local(fs, root, hostName, override);
  return { machine: override ? slug(override) : ids.machine_id, replica: ids.replica };
}
