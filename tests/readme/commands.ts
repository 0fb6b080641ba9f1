// Every command README.md shows, and how tests/readme/commands.test.ts checks it on a fresh
// machine (only Node, npm and git on the PATH). The test fails when README shows a command this
// list lacks, or this list names one README no longer shows, so the two cannot drift apart.
//
// A command README shows: each line of a ```sh block, and each inline `code` span that starts
// with npm, npx, bun, deno, node, scripts/ or .ci/.

export type Check =
  /** Run as written (with `run` instead when the shown form has a placeholder or is too slow). */
  | { how: "run"; run: string; stdout?: RegExp }
  /** Not run here (slow, or the suite itself): its tool resolves on a fresh PATH, its file exists. */
  | { how: "resolves"; run: string; file?: string; why: string }
  /** Not a command to type: README names it in prose. */
  | { how: "prose"; why: string };

export const README_COMMANDS: Record<string, Check> = {
  "npm install && npm run demo": { how: "run", run: "npm run demo" },
  "npm test": { how: "resolves", run: "npx bun --version", file: "scripts/test.ts", why: "the suite itself" },
  "npx bun ...": { how: "run", run: "npx bun --version", stdout: /^\d+\.\d+\.\d+/m },
  "npx deno ...": { how: "run", run: "npx deno --version", stdout: /^deno \d+/m },
  "npm run build": { how: "resolves", run: "npx bun --version", why: "the suite's own build step runs it" },
  "npm run schema": { how: "resolves", run: "npx bun --version", why: "rewrites schema/; tests/core/schema-files checks they are current" },
  "scripts/bench": { how: "run", run: "scripts/bench --help", stdout: /usage: scripts\/bench/ },
  "scripts/chaos": { how: "run", run: "scripts/chaos --help 2>&1", stdout: /usage: scripts\/chaos/ },
  "npm run memsync -- <args>": { how: "run", run: "npm run --silent memsync -- --version", stdout: /^memsync \d+\.\d+\.\d+, bun \d/m },
  "npm run memsync:deno -- <args>": { how: "run", run: "npm run --silent memsync:deno -- --version", stdout: /^memsync \d+\.\d+\.\d+, deno \d/m },
  "npx deno task memsync <args>": { how: "run", run: "npx deno task memsync --version", stdout: /^memsync \d+\.\d+\.\d+, deno \d/m },
  "npx bun scripts/bench-lib/gist-savings.ts": { how: "resolves", run: "npx bun --version", file: "scripts/bench-lib/gist-savings.ts", why: "a benchmark (seconds to minutes)" },
  "npx bun scripts/bench-lib/capture-quality.ts": { how: "run", run: "npx bun scripts/bench-lib/capture-quality.ts", stdout: /^split +prompts +precision +recall/m },
  "npx bun scripts/bench-lib/capture.ts": { how: "resolves", run: "npx bun --version", file: "scripts/bench-lib/capture.ts", why: "a benchmark (seconds to minutes)" },
  "npm test -- cli/recall sync/": { how: "resolves", run: "npx bun --version", file: "scripts/test.ts", why: "the suite itself, on named files" },
  "npm test -- deno": { how: "resolves", run: "npx bun --version", file: "scripts/test.ts", why: "the suite itself: the Deno core run alone" },
  "scripts/test-times.json": { how: "prose", why: "a file: the committed run order of the suite" },
  "bun build --compile": { how: "prose", why: "how the binary is made (scripts/build.ts runs it)" },
  "npm WARN": { how: "prose", why: "a tool warning capture leaves out" },
};

/** The commands README.md shows, in order, each once. */
export function readmeCommands(readme: string): string[] {
  const out = new Set<string>();
  for (const block of readme.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
    for (const line of block[1]!.split("\n")) if (line.trim()) out.add(line.trim());
  }
  const prose = readme.replace(/^```[\s\S]*?^```/gm, "");
  for (const m of prose.matchAll(/`((?:npm|npx|bun|deno|node) [^`]+|(?:scripts|\.ci)\/[^`]+)`/g)) out.add(m[1]!);
  return [...out];
}
