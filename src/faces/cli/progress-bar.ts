import type { GenericFormatter, SingleBar } from "cli-progress";
import { stderrIsTty } from "../../runtime/host.ts";

// Progress of long work (transfers, checkouts, backfills) as a bar on a terminal's stderr, drawn by
// cli-progress. Work reports (phase, done, total?); a phase with no known total shows a count. Only
// on a terminal and never with --json, so scripts and hooks see clean output; cli-progress is
// loaded only then, so ordinary commands do not pay for it at start-up.

export interface ProgressBar {
  update(phase: string, done: number, total?: number): void;
  stop(): void;
}

const NONE: ProgressBar = { update() {}, stop() {} };

export async function progressBar(json: boolean): Promise<ProgressBar> {
  if (json || !stderrIsTty()) return NONE;
  const { default: cli } = await import("cli-progress");
  let bar: SingleBar | undefined;
  let phase = "";
  let counting = false;
  const format: GenericFormatter = (options, params) =>
    counting ? `${phase}: ${params.value}` : `${phase} ${cli.Format.BarFormat(params.progress, options)} ${params.value}/${params.total}`;
  return {
    update(next, done, total) {
      if (!bar || next !== phase || counting !== !total) {
        bar?.stop();
        phase = next;
        counting = !total;
        bar = new cli.SingleBar({ stream: process.stderr, format, barsize: 30, hideCursor: true, fps: 10 }, cli.Presets.shades_classic);
        bar.start(total ?? 0, done);
      } else {
        if (total !== bar.getTotal()) bar.setTotal(total ?? 0);
        bar.update(done);
      }
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}
