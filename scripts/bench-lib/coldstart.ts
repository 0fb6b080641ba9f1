// Cold start of the compiled binary against the empty compiled Bun program (issue 16): `get ID`,
// `save TEXT` and `hook UserPromptSubmit` on the 10k benchmark store. Each case is one hyperfine
// -N invocation holding the empty program, the "before" binary (when given) and the "after" one,
// so the three share the machine's load of that minute; ratios are to the empty program's median
// in the same invocation. CPU is user + system per process (the test suite starts thousands).
//
//   bun scripts/bench-lib/coldstart.ts [--size 10000] [--runs 30] [--warmup 3] [--before BIN] [--after BIN]
//
// The hook reads its payload from standard input, which hyperfine -N cannot give: every command of
// that case, the empty program too, runs as `sh -c 'exec PROGRAM < payload'` (the same shell cost
// on each side). Each binary runs on its own copy of the store (index versions may differ); `save`
// runs after a pause of 2.1 s (hyperfine --prepare),
// as an agent saving now and then (see the Method section of docs/benchmarks.md).
//
// Without hyperfine (not installed on every machine), the same cases run as interleaved rounds:
// each round runs every command of a case once in a shuffled order (a save after its 2.1 s pause),
// wall time around the spawn and CPU (user + system) from Bun's resource usage of the child;
// medians over the rounds, the warmup rounds dropped. Interleaving shares the load the same way;
// with --before, a second table gives after − before per round (median and quartiles), which a
// loaded machine moves far less than either median.
//
// The hook's case has two more rows for the "after" binary (its optional warm path, issue 16):
// `after-warm`, `hook --warm` with the store's warm server (memsync hook-server) started before
// the runs and answering; `after-try`, `hook --warm` with no server (MEMSYNC_HOOK_SERVER=ask: the
// socket is tried, the hook runs in-process, no server is started), the price of the try on a
// first prompt. The server's own CPU per request (from /proc, over every warm run, warmup
// included, idle ticks included) is printed beside: a warm hook costs the client's CPU plus it.
//
// Every program runs from a copy written just before the runs (`freshCopy`): the same bytes cost
// 0.4-1.1 ms more CPU per start from a file `bun build` wrote or one copied long before, and 1.4-4 ms
// more once its pages were dropped and read back by the faults of a run (the page cache holds
// them differently; docs/benchmarks.md, branch getsave7), so programs compared side by side must be
// in the same state.

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { commandLine, findHyperfine, loadAverage } from "./cold.ts";
import { ensureBenchStore, scratchCopy, settle } from "./generate.ts";
import { RECALL_PROMPTS } from "./recall-bench.ts";
import { arg } from "./args.ts";
import { emptyBun } from "./empty-bun.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const BENCH = path.join(REPO, ".bench");
const SEED = 20261121;



/**
 * A copy of a program written now, by plain writes, beside the others (see the header): every
 * program of a comparison then starts from the same page-cache state.
 */
function freshCopy(bin: string, name: string): string {
  const out = path.join(BENCH, "coldstart-bin", name);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.rmSync(out, { force: true });
  fs.writeFileSync(out, fs.readFileSync(bin), { mode: 0o755 });
  return out;
}

/** A process's user + system CPU so far, ms (Linux /proc; null elsewhere). */
function cpuOf(pid: number): number | null {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return null;
  }
}

/**
 * The store's warm hook server, started by hand and waited for (it answers a --warm hook), in
 * its own private socket folder; stop() ends it (SIGTERM, by its pid).
 */
async function startWarmServer(bin: string, store: string, runtime: string, payload: string): Promise<{ pid: number; stop: () => void }> {
  const child = spawn(bin, ["hook-server", "--store", store], { stdio: "ignore", env: { ...process.env, XDG_RUNTIME_DIR: runtime, MEMSYNC_HOOK_SERVER_IDLE_MS: String(3_600_000) } });
  const stop = () => {
    try {
      process.kill(child.pid!, "SIGTERM");
    } catch {
      // gone
    }
  };
  for (let i = 0; i < 200; i++) {
    const r = spawnSync(bin, ["--store", store, "hook", "UserPromptSubmit", "--warm"], { input: fs.readFileSync(payload), encoding: "utf8", env: { ...process.env, XDG_RUNTIME_DIR: runtime, MEMSYNC_HOOK_SERVER: "ask", MEMSYNC_HOOK_SERVER_TRACE: "1" } });
    if (/memsync hook: warm/.test(r.stderr)) return { pid: child.pid!, stop };
    spawnSync("sleep", ["0.05"]);
  }
  stop();
  throw new Error("the warm hook server did not answer");
}

interface Row {
  name: string;
  median: number;
  mean: number;
  stddev: number;
  min: number;
  cpu: number;
  /** Each round's CPU in order (interleaved runs only): rounds line up across a case's commands. */
  cpus?: number[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The fallback without hyperfine (see the header): interleaved rounds, medians of wall and CPU. */
function interleaved(commands: [string, string[]][], opts: { runs: number; warmup: number; prepare?: string[] }): Row[] {
  const wall = new Map<string, number[]>(commands.map(([n]) => [n, []]));
  const cpu = new Map<string, number[]>(commands.map(([n]) => [n, []]));
  for (let round = 0; round < opts.warmup + opts.runs; round++) {
    const order = [...commands].sort(() => Math.random() - 0.5);
    for (const [name, argv] of order) {
      if (opts.prepare) spawnSync(opts.prepare[0]!, opts.prepare.slice(1));
      const t0 = performance.now();
      const r = Bun.spawnSync(argv, { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
      const ms = performance.now() - t0;
      if (r.exitCode !== 0) throw new Error(`failed (exit ${r.exitCode}): ${commandLine(argv)}`);
      if (round < opts.warmup) continue;
      wall.get(name)!.push(ms);
      cpu.get(name)!.push(Number(r.resourceUsage?.cpuTime.total ?? Number.NaN) / 1000);
    }
  }
  return commands.map(([name]) => {
    const w = wall.get(name)!;
    const mean = w.reduce((a, b) => a + b, 0) / w.length;
    const stddev = Math.sqrt(w.reduce((a, b) => a + (b - mean) ** 2, 0) / w.length);
    return { name, median: median(w), mean, stddev, min: Math.min(...w), cpu: median(cpu.get(name)!), cpus: cpu.get(name)! };
  });
}

function hyperfine(bin: string, key: string, commands: [string, string][], opts: { runs: number; warmup: number; prepare?: string }): Row[] {
  const out = path.join(BENCH, "hyperfine", `coldstart-${key}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const args = ["-N", "--warmup", String(opts.warmup), "--runs", String(opts.runs), "--style", "none", "--export-json", out];
  if (opts.prepare) args.push("--prepare", opts.prepare);
  for (const [name, cmd] of commands) args.push("-n", name, cmd);
  const r = spawnSync(bin, args, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (r.status !== 0) throw new Error(`hyperfine failed for ${key}: ${r.stderr}`);
  const res = JSON.parse(fs.readFileSync(out, "utf8")) as { results: { command: string; times: number[]; median: number; mean: number; stddev: number; min: number; user: number; system: number }[] };
  return res.results.map((x) => ({ name: x.command, median: x.median * 1000, mean: x.mean * 1000, stddev: x.stddev * 1000, min: x.min * 1000, cpu: (x.user + x.system) * 1000 }));
}

/** Run once, untimed: it must succeed (a benchmark of a failing command measures nothing). */
function check(argv: string[], input?: string): void {
  const r = spawnSync(argv[0]!, argv.slice(1), { input, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] });
  if (r.status !== 0) throw new Error(`failed (exit ${r.status}): ${commandLine(argv)}\n${r.stderr}`);
}

async function main(): Promise<void> {
  const size = Number(arg("--size", "10000"));
  const runs = Number(arg("--runs", "30"));
  const warmup = Number(arg("--warmup", "3"));
  const after = path.resolve(arg("--after", path.join(REPO, "dist/memsync")));
  const beforeArg = arg("--before", "");
  const before = beforeArg ? path.resolve(beforeArg) : null;
  const hf = findHyperfine();
  const loadStart = loadAverage();

  const dir = path.join(BENCH, `store-${size}`);
  const { manifest } = await ensureBenchStore(dir, size, { fresh: false, seed: SEED, log: (l) => console.error(l) });
  const empty = freshCopy(emptyBun(BENCH), "empty");
  const payload = path.join(BENCH, "coldstart-prompt.json");
  // a prompt that asks about earlier work: recall runs and its memories come back as context
  fs.writeFileSync(payload, JSON.stringify({ session_id: "bench", transcript_path: "/dev/null", cwd: REPO, hook_event_name: "UserPromptSubmit", prompt: RECALL_PROMPTS.prompt }));

  const bins: [string, string][] = [...(before ? [["before", freshCopy(before, "before")] as [string, string]] : []), ["after", freshCopy(after, "after")]];
  // each binary its own copy of the store: binaries of different index versions would otherwise
  // rebuild or upgrade one shared index on every run (each makes its copy's index its own version
  // in the untimed check below)
  const copies = new Map<string, string>();
  for (const [n] of bins) {
    const copy = `${dir}-coldstart-${n}`;
    scratchCopy(dir, copy);
    await settle(copy);
    copies.set(n, copy);
  }
  const storeOf = (n: string) => copies.get(n)!;
  // variables set by the shell itself (no env program): every row pays the same shell
  const sh = (cmd: string[], vars: Record<string, string> = {}) => ["sh", "-c", `${Object.entries(vars).map(([k, v]) => `${k}=${v} `).join("")}exec ${commandLine(cmd)} < ${payload}`];
  const b0 = bins.find(([n]) => n === "after")![1];
  // private socket folders (warm/place.ts): one with the after binary's server, one with none
  const runtime = fs.mkdtempSync("/tmp/memsync-bench-run-");
  const noServer = fs.mkdtempSync("/tmp/memsync-bench-none-");
  const cases: { key: string; label: string; commands: [string, string[]][]; prepare?: string[]; runs?: number }[] = [
    {
      key: "version",
      label: "`memsync --version`",
      commands: [["empty", [empty]], ...bins.map(([n, b]): [string, string[]] => [n, [b, "--version"]])],
    },
    {
      key: "get",
      label: `\`get ID\` (a memory from the flat folder, ${size.toLocaleString("en")} memories)`,
      commands: [["empty", [empty]], ...bins.map(([n, b]): [string, string[]] => [n, [b, "--store", storeOf(n), "get", manifest.old_id]])],
    },
    {
      key: "save",
      label: "`save TEXT --tag bench` (after a pause of 2.1 s)",
      commands: [["empty", [empty]], ...bins.map(([n, b]): [string, string[]] => [n, [b, "--store", storeOf(n), "save", "Benchmark note: prefer cursor pagination for list endpoints in the search API", "--tag", "bench"]])],
      prepare: ["sleep", "2.1"],
      runs: Math.min(runs, 20),
    },
    {
      key: "hook",
      label: "`hook UserPromptSubmit` (a prompt asking about earlier work, on stdin)",
      commands: [
        ["empty", sh([empty])],
        ...bins.map(([n, b]): [string, string[]] => [n, sh([b, "--store", storeOf(n), "hook", "UserPromptSubmit"])]),
        // the after binary's warm path: a server answering, and the try with none (see the header)
        ["after-warm", sh([b0, "--store", storeOf("after"), "hook", "UserPromptSubmit", "--warm"], { XDG_RUNTIME_DIR: runtime, MEMSYNC_HOOK_SERVER: "ask" })],
        ["after-try", sh([b0, "--store", storeOf("after"), "hook", "UserPromptSubmit", "--warm"], { XDG_RUNTIME_DIR: noServer, MEMSYNC_HOOK_SERVER: "ask" })],
      ],
    },
  ];
  // each binary settles its own copy with its own code: one of another index version rebuilds
  // the index on its first run, and rows written by a rebuild are racily clean until a full
  // refresh, so its gets would take the Store's path (twice the folder stats) where the other
  // binary's take the settled read: status, a pause past the racy window, status again
  for (const [n, b] of bins) check([b, "--store", storeOf(n), "status"]);
  spawnSync("sleep", ["2.1"]);
  for (const [n, b] of bins) check([b, "--store", storeOf(n), "status"]);
  for (const [n, b] of bins) {
    check([b, "--store", storeOf(n), "get", manifest.old_id]);
    check([b, "--store", storeOf(n), "hook", "UserPromptSubmit"], fs.readFileSync(payload, "utf8"));
  }

  const lines: string[] = [];
  const paired: string[] = [];
  const cell = (r: Row, base: Row) => `${r.median.toFixed(1)} (${(r.median / base.median).toFixed(2)}x) | ${r.cpu.toFixed(1)} (${(r.cpu / base.cpu).toFixed(2)}x)`;
  const head = bins.map(([n]) => `${n}: wall median ms (ratio) | ${n}: CPU ms (ratio)`).join(" | ");
  lines.push(`| command | empty: wall median / CPU ms | ${head} | load |`, `|---|--:|${bins.map(() => "--:|--:|").join("")}--:|`);
  let serverCpu = "";
  for (const c of cases) {
    const opts = { runs: c.runs ?? runs, warmup };
    const server = c.key === "hook" ? await startWarmServer(b0, storeOf("after"), runtime, payload) : null;
    const cpuBefore = server ? cpuOf(server.pid) : null;
    const rows = hf
      ? hyperfine(hf, c.key, c.commands.map(([n, argv]) => [n, commandLine(argv)]), { ...opts, ...(c.prepare ? { prepare: commandLine(c.prepare) } : {}) })
      : interleaved(c.commands, { ...opts, ...(c.prepare ? { prepare: c.prepare } : {}) });
    const cpuAfter = server ? cpuOf(server.pid) : null;
    server?.stop();
    const base = rows.find((r) => r.name === "empty")!;
    const cells = bins.map(([n]) => cell(rows.find((r) => r.name === n)!, base)).join(" | ");
    lines.push(`| ${c.label} | ${base.median.toFixed(1)} / ${base.cpu.toFixed(1)} | ${cells} | ${loadAverage()?.toFixed(2) ?? "?"} |`);
    // interleaved: after − before round by round (the load of that round shared), median and quartiles
    const b = rows.find((r) => r.name === "before")?.cpus;
    const a = rows.find((r) => r.name === "after")?.cpus;
    if (a && b) {
      const d = a.map((x, i) => x - b[i]!).sort((x, y) => x - y);
      const q = (f: number) => d[Math.round(f * (d.length - 1))]!;
      const sign = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(2)}`;
      paired.push(`| ${c.label} | ${sign(median(d))} [${sign(q(0.25))}, ${sign(q(0.75))}] |`);
    }
    for (const extra of ["after-warm", "after-try"]) {
      const r = rows.find((x) => x.name === extra);
      if (!r) continue;
      const pad = bins.slice(0, -1).map(() => " | |").join("");
      lines.push(`| ↳ \`hook --warm\`, ${extra === "after-warm" ? "the server answering" : "no server (the socket tried)"} | |${pad} ${cell(r, base)} | |`);
    }
    if (cpuBefore !== null && cpuAfter !== null) {
      // every warm run, warmup included, and the untimed start-up checks' one answer
      const requests = opts.runs + opts.warmup + 1;
      serverCpu = `the warm server's CPU: ${(cpuAfter - cpuBefore).toFixed(0)} ms over ${requests} requests, ${((cpuAfter - cpuBefore) / requests).toFixed(2)} ms per request (clock ticks of 10 ms: ±${(10 / requests).toFixed(2)})`;
    }
    console.error(`${c.key}: ${rows.map((r) => `${r.name} ${r.median.toFixed(1)} ms wall, ${r.cpu.toFixed(1)} ms CPU`).join("; ")}`);
  }
  for (const copy of copies.values()) fs.rmSync(copy, { recursive: true, force: true });
  fs.rmSync(path.join(BENCH, "coldstart-bin"), { recursive: true, force: true });
  const how = hf ? `hyperfine -N --warmup ${warmup} --runs ${runs} (save: --runs ${Math.min(runs, 20)} --prepare 'sleep 2.1'); CPU: hyperfine's mean` : `no hyperfine: ${runs} interleaved rounds after ${warmup} warmup rounds (save: ${Math.min(runs, 20)}, each after a 2.1 s pause), medians of wall and CPU`;
  console.log(`${how}; ${size.toLocaleString("en")}-memory store; load average ${loadStart?.toFixed(2)} at the start; the hook's row runs every command (the empty program too) through sh -c 'exec ... < payload'.\n`);
  console.log(lines.join("\n"));
  if (paired.length) console.log(`\n| command | after − before CPU ms, per round: median [quartiles] |\n|---|--:|\n${paired.join("\n")}`);
  if (serverCpu) console.log(`\n${serverCpu}`);
  fs.rmSync(runtime, { recursive: true, force: true });
  fs.rmSync(noServer, { recursive: true, force: true });
}

await main();
