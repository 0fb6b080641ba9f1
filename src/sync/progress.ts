// Progress of long transfers (object copies, HTTP fetches and pushes). The sync layer reports;
// a face decides whether and how to show it (the CLI: one line on a terminal's stderr).

export type ProgressListener = (phase: string, done: number, total?: number) => void;

let listener: ProgressListener | undefined;

export function onProgress(fn: ProgressListener | undefined): void {
  listener = fn;
}

export function progress(phase: string, done: number, total?: number): void {
  listener?.(phase, done, total);
}
