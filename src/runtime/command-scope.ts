// What a module keeps for the life of one command (an operation), such as the index of each pack
// file of a repository and the packs it opened. A process that runs many commands (serve, mcp,
// tests running the command line in-process) must not carry it into the next one: between two
// commands another program may repack (git gc, another memsync), and a kept list of packs then
// misses the new ones, and an open pack holds a removed file's space. Commands of one process may
// also run at once (reads together, ops/gate.ts; an operation that runs others): one starting must
// not take away what another is still using, so what they kept is forgotten when the last one
// running ends (and, in case one was never ended, when one starts with none running).

const resets = new Set<() => void>();
let running = 0;

/** Register what to forget when no command is running. */
export function forgetAtNextCommand(reset: () => void): void {
  resets.add(reset);
}

function forgetAll(): void {
  for (const reset of resets) reset();
}

/** A command starts; call what it returns when it ends (once; later calls do nothing). */
export function startCommand(): () => void {
  if (running === 0) forgetAll();
  running++;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    running--;
    if (running === 0) forgetAll();
  };
}
