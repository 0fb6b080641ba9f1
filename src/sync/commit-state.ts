import fs from "node:fs";
import { LOCAL_DIR } from "../store/layout.ts";

// The head the last memsync commit or checkout left (.memsync/committed.json, machine-local).
// When the branch is somewhere else (native git moved it, or a command was killed between moving
// it and writing this), the next commit compares every file with git instead of trusting the
// journal alone.

const STATE_FILE = `${LOCAL_DIR}/committed.json`;

export function readCommitState(root: string): { head: string | null } | null {
  try {
    const v = JSON.parse(fs.readFileSync(`${root}/${STATE_FILE}`, "utf8")) as { head?: unknown };
    return { head: typeof v.head === "string" ? v.head : null };
  } catch {
    return null;
  }
}

export function writeCommitState(root: string, head: string | null): void {
  fs.mkdirSync(`${root}/${LOCAL_DIR}`, { recursive: true });
  const tmp = `${root}/${STATE_FILE}.${Date.now()}-${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify({ head }, null, 2)}\n`);
  fs.renameSync(tmp, `${root}/${STATE_FILE}`);
}
