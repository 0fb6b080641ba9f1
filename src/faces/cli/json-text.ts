// A result as the CLI prints it with --json: apart from format.ts, whose human-readable forms
// load the conflict and time helpers, so a save's quick route (commands/save-one.ts) does not.

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
