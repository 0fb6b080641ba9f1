// npm run build: the two binaries, via bun build --compile. dist/memsync is the main build (every
// command); dist/memsync-edge leaves maintenance out (MEMSYNC_EDITION, see src/runtime/edition.ts).
// --bytecode and ESM keep start-up to a few milliseconds (DESIGN.md section 3). A compiled Bun
// program by default looks for .env files (listing the working folder and every folder above it)
// and bunfig.toml on every start: memsync reads neither (its settings are flags, MEMSYNC_*
// variables and the store's .meta.json), and a repository's .env must not redirect its store or
// its token, so both are off (about 100 fewer page faults per process; more in a crowded folder).
// --compile-jit-policy: the binary starts with JavaScriptCore's JIT tier-up thresholds scaled up
// JIT_POLICY times: a command that lives 10-60 ms otherwise spends CPU compiling run-once startup
// code on compiler threads (a hook at 10k: ~20% of its CPU). Commands that may run long ask for the
// usual policy first (src/main.ts, runtime/host.ts usualJit); docs/benchmarks.md, branch coldstart3.
// src/stat-worker.ts is a second entry point: the thread status starts to stat a large store's
// folders (store/parallel-snapshot.ts) is loaded from the binary by that name; src/record-worker.ts
// too (the threads a large import builds its memories on, ops/import-build.ts).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { aliasIndexModule } from "./gen-alias-index.ts";
import { patternWordsModule } from "./gen-pattern-words.ts";
import { triggerIndexModule } from "./gen-trigger-index.ts";
import { RELUCTANT_JIT } from "../src/runtime/jit-policy.ts";

const JIT_POLICY = RELUCTANT_JIT;

const targets = [
  { entry: "src/main.ts", out: "dist/memsync", edition: "main" },
  { entry: "src/main.ts", out: "dist/memsync-edge", edition: "edge" },
];

// the capture vocabulary's prebuilt alias index, made again if the table changed (a binary never
// ships one it would have to rebuild on every start; tests/core/alias-index.test.ts says so too)
const GEN = "src/core/capture/alias-index.gen.ts";
const fresh = aliasIndexModule();
if (readFileSync(GEN, "utf8") !== fresh) {
  writeFileSync(GEN, fresh);
  console.error(`${GEN} made again from the vocabulary's table`);
}
// capture's patterns' necessary words (src/core/capture/pattern-words.ts), read here, never in a hook
const WORDS_GEN = "src/core/capture/pattern-words.gen.ts";
const words = patternWordsModule();
if (readFileSync(WORDS_GEN, "utf8") !== words) {
  writeFileSync(WORDS_GEN, words);
  console.error(`${WORDS_GEN} made again from capture's patterns`);
}

// recall's trigger words as sorted keys (src/core/recall-concepts.ts triggersOf), made again if the tables changed
const TRIGGERS_GEN = "src/core/trigger-index.gen.ts";
const triggers = triggerIndexModule();
if (readFileSync(TRIGGERS_GEN, "utf8") !== triggers) {
  writeFileSync(TRIGGERS_GEN, triggers);
  console.error(`${TRIGGERS_GEN} made again from recall's trigger tables`);
}

mkdirSync("dist", { recursive: true });
// every build its own id: the warm hook server answers only hooks of its own build (src/faces/hooks/warm/build-id.ts)
const buildStamp = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
for (const t of targets) {
  const args = ["build", "--compile", "--bytecode", "--format=esm", "--minify", "--splitting", "--sourcemap=none", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", `--compile-jit-policy=${JIT_POLICY}`, `--define=MEMSYNC_EDITION=${JSON.stringify(t.edition)}`, `--define=MEMSYNC_BUILD_ID=${JSON.stringify(`${t.edition}-${buildStamp}`)}`, t.entry, "src/stat-worker.ts", "src/record-worker.ts", "--outfile", t.out];
  const proc = Bun.spawnSync([process.execPath, ...args], { stdout: "inherit", stderr: "inherit" });
  if (proc.exitCode !== 0) {
    console.error(`build failed: bun ${args.join(" ")}`);
    process.exit(proc.exitCode ?? 1);
  }
}
