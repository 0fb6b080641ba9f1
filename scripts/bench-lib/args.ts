// The benches' command-line options: `--name value`, the fallback when absent.

export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

/** A numeric option `--name N`, the fallback when absent. */
export function numArg(name: string, fallback: number): number {
  const v = arg(name, "");
  return v === "" ? fallback : Number(v);
}

/** The words after the script that are neither options nor an option's value (`valued`: the options that take one): a bench's binaries. */
export function positionals(valued: ReadonlySet<string>): string[] {
  const argv = process.argv.slice(2);
  return argv.filter((a, i) => !a.startsWith("--") && !valued.has(argv[i - 1] ?? ""));
}
