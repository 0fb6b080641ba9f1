import { invalidInput } from "./errors.ts";

// Times as people write them on a command line, turned into Unix seconds.

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** "7d", "12h", "2026-11-01", "2026-11-01T10:00:00Z" or Unix seconds. */
export function parseSince(text: string, nowSeconds: number): number {
  const t = text.trim();
  const rel = /^(\d+)\s*([smhdw])$/i.exec(t);
  if (rel) return nowSeconds - Number(rel[1]) * (UNIT_SECONDS[rel[2]!.toLowerCase()] ?? 0);
  if (/^\d{9,11}$/.test(t)) return Number(t);
  const date = /^(\d{4})-(\d{2})-(\d{2})([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.exec(t);
  if (date) {
    const ms = Date.parse(t);
    // Date.parse rolls 2026-02-30 over to March; a day that does not exist is refused
    const day = new Date(Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3])));
    const real = day.getUTCFullYear() === Number(date[1]) && day.getUTCMonth() === Number(date[2]) - 1 && day.getUTCDate() === Number(date[3]);
    if (real && !Number.isNaN(ms)) return Math.floor(ms / 1000);
  }
  throw invalidInput(`invalid time ${JSON.stringify(t.slice(0, 40))}: use 7d, 12h, 2026-11-01 or Unix seconds`);
}

export function isoTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.000Z$/, "Z");
}
