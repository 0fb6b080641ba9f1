import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

// The yardstick of issue 16's cold-start ratios: the smallest compiled Bun program, built with the
// start-up flags scripts/build.ts gives memsync. Without `--no-compile-autoload-*` the empty
// program also looks for a .env and a bunfig at start (~1.1 ms CPU and ~147 page faults more than
// memsync pays, branch coldget29), which raised the floor and flattered every ratio.

/** The flags of memsync's build that change what a compiled program does at start (scripts/build.ts). */
export const START_FLAGS = ["--compile", "--bytecode", "--format=esm", "--minify", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig"] as const;

/** The empty program under `benchDir`, built once (its name changes with the flags). */
export function emptyBun(benchDir: string, bun: string = process.execPath): string {
  const out = path.join(benchDir, "empty-bun-noautoload");
  if (fs.existsSync(out)) return out;
  fs.mkdirSync(benchDir, { recursive: true });
  const src = path.join(benchDir, "empty.ts");
  fs.writeFileSync(src, "export {};\n");
  const r = spawnSync(bun, ["build", ...START_FLAGS, src, "--outfile", out], { stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0) throw new Error("could not compile the empty Bun program");
  return out;
}
