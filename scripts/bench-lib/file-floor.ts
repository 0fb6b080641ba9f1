// The file-creation floor of an import: the same record files with the same bytes, made by a
// bare Bun loop (a temp name opened O_EXCL, write, close, rename, as the store makes a bulk
// file) in a fresh folder, then made durable by one `sync -f`. Wall and the process's CPU.
//
//   bun scripts/bench-lib/file-floor.ts STORE DEST   (prints {"seconds", "cpu", "sync", "files"})

import fs from "node:fs";
import path from "node:path";

const [from, to] = process.argv.slice(2) as [string, string];
const files: [string, Uint8Array][] = [];
const walk = (rel: string) => {
  for (const e of fs.readdirSync(path.join(from, rel), { withFileTypes: true })) {
    const r = path.join(rel, e.name);
    if (e.isDirectory()) walk(r);
    else files.push([r, fs.readFileSync(path.join(from, r))]);
  }
};
for (const d of ["memories", "relations"]) if (fs.existsSync(path.join(from, d))) walk(d);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const made = new Set<string>();
for (const [rel, bytes] of files) {
  const dir = path.join(to, path.dirname(rel));
  if (!made.has(dir)) fs.mkdirSync(dir, { recursive: true }), made.add(dir);
  const final = path.join(to, rel);
  const tmp = `${final}.${made.size}.tmp`;
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o644);
  fs.writeSync(fd, bytes);
  fs.closeSync(fd);
  fs.renameSync(tmp, final);
}
const t1 = performance.now();
Bun.spawnSync(["sync", "-f", to]);
const t2 = performance.now();
const c = process.cpuUsage(cpu0);
console.log(JSON.stringify({ seconds: (t2 - t0) / 1000, sync: (t2 - t1) / 1000, cpu: (c.user + c.system) / 1e6, files: files.length }));
