// What a module keeps for the life of one command (an operation), such as the index of each pack
// file of a repository. A process that runs many commands (serve, mcp, tests running the command
// line in-process) must not carry it into the next one: between two commands another program may
// repack (git gc, another memsync), and a kept list of packs then misses the new ones. Every
// operation starts by forgetting what its modules registered here (ops/catalogue/run.ts).

const resets = new Set<() => void>();

/** Register what to forget when the next command starts. */
export function forgetAtNextCommand(reset: () => void): void {
  resets.add(reset);
}

/** A command starts: what earlier commands kept is forgotten. */
export function startCommand(): void {
  for (const reset of resets) reset();
}
