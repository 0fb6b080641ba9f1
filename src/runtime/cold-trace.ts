import process from "node:process";
import { writeErr } from "./host.ts";

// An opt-in trace of where a short command's CPU goes (MEMSYNC_COLD_TRACE=1), phase by phase:
// each mark records this process's CPU (user + system) and wall time; the report, one stderr line
// per phase, gives what each phase added. The first mark's CPU is everything before it (Bun's
// start, the entry's modules). Off, a mark costs one boolean test (issue 16: the cold hook).

const on = process.env.MEMSYNC_COLD_TRACE === "1";
const marks: { label: string; cpu: number; wall: number }[] = [];

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** The end of a phase, named by what it did. */
export function mark(label: string): void {
  if (on) marks.push({ label, cpu: cpuMs(), wall: performance.now() });
}

/** The phases so far on stderr (nothing when the trace is off). */
export function traceReport(): void {
  if (!on || marks.length === 0) return;
  const lines = marks.map((m, i) => {
    const before = i === 0 ? { cpu: 0, wall: 0 } : marks[i - 1]!;
    return `memsync cold-trace: ${(m.cpu - before.cpu).toFixed(2).padStart(6)} cpu ${(m.wall - before.wall).toFixed(2).padStart(6)} wall  ${m.label}`;
  });
  lines.push(`memsync cold-trace: ${marks.at(-1)!.cpu.toFixed(2).padStart(6)} cpu ${marks.at(-1)!.wall.toFixed(2).padStart(6)} wall  total`);
  writeErr(`${lines.join("\n")}\n`);
}
