import { stderrIsTty, writeErr } from "../../runtime/host.ts";

// A one-line progress bar on a terminal's stderr. Behind this small interface so that a package
// (cli-progress) can replace the drawing without touching the commands; nothing is drawn when
// stderr is not a terminal or the output is JSON, so pipes and agents see clean output.

export interface ProgressBar {
  /** done of total, for a phase ("making gists"); redrawn at most every 100 ms. */
  update(phase: string, done: number, total: number): void;
  /** Finish the line (if anything was drawn). */
  stop(): void;
}

const WIDTH = 24;

export function progressBar(enabled: boolean): ProgressBar {
  if (!enabled || !stderrIsTty()) return { update: () => {}, stop: () => {} };
  let drawnAt = 0;
  let drawn = false;
  let lastPhase = "";
  return {
    update(phase, done, total) {
      const now = Date.now();
      const finished = done >= total;
      if (phase === lastPhase && !finished && now - drawnAt < 100) return;
      if (phase !== lastPhase && drawn) writeErr("\n");
      lastPhase = phase;
      drawnAt = now;
      drawn = true;
      const share = total > 0 ? Math.min(1, done / total) : 1;
      const full = Math.round(share * WIDTH);
      writeErr(`\r${phase} [${"#".repeat(full)}${"-".repeat(WIDTH - full)}] ${String(Math.floor(share * 100)).padStart(3)}%  ${done}/${total}`);
    },
    stop() {
      if (drawn) writeErr("\n");
      drawn = false;
    },
  };
}
