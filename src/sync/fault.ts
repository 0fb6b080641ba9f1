// Fault injection for the crash tests: MEMSYNC_FAULT=<point> kills this process (SIGKILL, as a
// crash or the OOM killer would) when it reaches that point, so each window between two durable
// steps of a commit or a checkout can be tested for what the next command makes of it. "<point>:N"
// kills on the N-th time the point is reached. Unset, it costs one property read.

const wanted = typeof process !== "undefined" ? process.env.MEMSYNC_FAULT : undefined;
let seen = 0;

export function faultPoint(name: string): void {
  if (wanted === undefined) return;
  const [point, nth] = wanted.split(":");
  if (point !== name) return;
  seen++;
  if (seen >= Number(nth ?? 1)) process.kill(process.pid, "SIGKILL");
}
