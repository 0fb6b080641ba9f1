// Cold whole-process timings: each run is a fresh process of the compiled binary, as an agent hook
// or a shell would start it. hyperfine when installed (no shell, warmup, JSON export), else a
// plain spawnSync loop.

import { spawnSync } from "node:child_process";
import fs from "node:fs";

export interface Stat {
  mean: number;
  median: number;
  stddev: number;
  min: number;
  max: number;
  user: number | null;
  system: number | null;
  runs: number;
  /** The last line the command printed (search and list say how many matched). */
  lastLine?: string;
  /** 1-minute load average right after the runs: other work on the machine shows here. */
  load?: number;
}

export interface ColdCase {
  /** Short key, e.g. "get-old". */
  key: string;
  /** The command line: argv[0] is the program. */
  argv: string[];
  /** Run before each timed run, untimed (hyperfine --prepare). */
  prepare?: string[];
  warmup?: number;
  runs?: number;
}

export interface ColdOptions {
  runs: number;
  warmup: number;
  hyperfine: string | null;
  jsonDir: string;
}

export function findHyperfine(): string | null {
  for (const dir of (process.env.PATH ?? "").split(":").concat(["/usr/bin", "/usr/local/bin"])) {
    const p = `${dir}/hyperfine`;
    if (dir && fs.existsSync(p)) return p;
  }
  return null;
}

/** Quote one argument for hyperfine's own (shell-words) splitting under -N. */
function quote(a: string): string {
  return /^[\w@%+=:,./-]+$/.test(a) ? a : `"${a.replace(/(["\\$`])/g, "\\$1")}"`;
}

export const commandLine = (argv: readonly string[]) => argv.map(quote).join(" ");

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function stddev(xs: number[]): number {
  if (xs.length < 2) return 0;
  const mu = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - mu) ** 2, 0) / (xs.length - 1));
}

export function statOf(ms: number[]): Stat {
  return {
    mean: ms.reduce((a, b) => a + b, 0) / ms.length,
    median: median(ms),
    stddev: stddev(ms),
    min: Math.min(...ms),
    max: Math.max(...ms),
    user: null,
    system: null,
    runs: ms.length,
  };
}

/** One untimed run that must succeed; returns the last line of its output. */
function checkOnce(c: ColdCase): string {
  if (c.prepare) run(c.prepare);
  const r = spawnSync(c.argv[0]!, c.argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", maxBuffer: 256 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`benchmark command failed (exit ${r.status}): ${commandLine(c.argv)}\n${r.stderr}`);
  return r.stdout.trimEnd().split("\n").pop() ?? "";
}

function run(argv: string[]): void {
  const r = spawnSync(argv[0]!, argv.slice(1), { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (r.status !== 0) throw new Error(`command failed (exit ${r.status}): ${commandLine(argv)}\n${r.stderr}`);
}

export function loadAverage(): number | undefined {
  try {
    return Number(fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
  } catch {
    return undefined;
  }
}

export function measure(c: ColdCase, opts: ColdOptions): Stat {
  return { ...measureRuns(c, opts), load: loadAverage() };
}

function measureRuns(c: ColdCase, opts: ColdOptions): Stat {
  const lastLine = checkOnce(c);
  const runs = c.runs ?? opts.runs;
  const warmup = c.warmup ?? opts.warmup;
  if (opts.hyperfine) {
    const out = `${opts.jsonDir}/${c.key}.json`;
    const args = ["-N", "--warmup", String(warmup), "--runs", String(runs), "--style", "none", "--export-json", out];
    if (c.prepare) args.push("--prepare", commandLine(c.prepare));
    args.push("-n", c.key, commandLine(c.argv));
    const r = spawnSync(opts.hyperfine, args, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
    if (r.status !== 0) throw new Error(`hyperfine failed for ${c.key}: ${r.stderr}`);
    const res = (JSON.parse(fs.readFileSync(out, "utf8")) as { results: { times: number[]; user: number; system: number }[] }).results[0]!;
    const ms = res.times.map((t) => t * 1000);
    return { ...statOf(ms), user: res.user * 1000, system: res.system * 1000, lastLine };
  }
  // fallback: time spawnSync itself (includes a little of the parent's spawn overhead)
  const times: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    if (c.prepare) run(c.prepare);
    const t0 = performance.now();
    const r = spawnSync(c.argv[0]!, c.argv.slice(1), { stdio: "ignore" });
    const dt = performance.now() - t0;
    if (r.status !== 0) throw new Error(`benchmark command failed: ${commandLine(c.argv)}`);
    if (i >= warmup) times.push(dt);
  }
  return { ...statOf(times), lastLine };
}
