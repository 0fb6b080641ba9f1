import process from "node:process";
import { runtimeName } from "./host.ts";

// How to run this memsync again from another program (git calls it as a merge driver): the
// compiled binary itself, or the runtime with this script.

export function selfCommand(): string[] {
  const script = process.argv[1] ?? "";
  if (runtimeName === "bun" && (script === "" || script.startsWith("/$bunfs/") || script.includes("~BUN"))) return [process.execPath];
  if (runtimeName === "deno") return [process.execPath, "run", "-A", script];
  return [process.execPath, script];
}

/** A word for a POSIX shell command line (git runs merge drivers through sh). */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}
