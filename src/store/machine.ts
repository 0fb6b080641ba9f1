import { parseJsonText } from "../core/model/validate.ts";
import { randomHex, writeAtomic } from "./atomic-write.ts";
import type { StoreFs } from "./fs-port.ts";
import { LOCAL_DIR } from "./layout.ts";

// Which machine this store copy lives on. Machine-local (under .memsync/, never synced): each
// clone of a store gets its own id, named after the host plus a random tail because VPS boxes
// often share a hostname. MEMSYNC_MACHINE overrides it.

const FILE = "machine.json";

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9.-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "machine";
}

export function machineId(fs: StoreFs, root: string, hostName: string, override?: string): string {
  if (override) return slug(override);
  const dir = `${root}/${LOCAL_DIR}`;
  const path = `${dir}/${FILE}`;
  if (fs.stat(path)?.isFile) {
    const parsed = parseJsonText(fs.readText(path));
    const id = parsed.ok ? (parsed.value as { machine_id?: unknown }).machine_id : undefined;
    if (typeof id === "string" && id) return id;
  }
  const id = `${slug(hostName)}-${randomHex(3)}`;
  fs.mkdirp(dir);
  writeAtomic(fs, dir, FILE, `${JSON.stringify({ machine_id: id }, null, 2)}\n`);
  return id;
}
