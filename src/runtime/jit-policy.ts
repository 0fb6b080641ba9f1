// The binary's JIT policy: JavaScriptCore's tier-up thresholds scaled up this many times
// (scripts/build.ts --compile-jit-policy), so a short command's run-once code stays in the
// interpreter instead of paying compiler threads. A Worker's JS world starts with the usual
// policy, not the binary's; a worker that does a short command's work asks for this one itself.

export const RELUCTANT_JIT = 30;

/** This thread's JS world takes the binary's reluctant policy (Bun only; nothing elsewhere). */
export function reluctantJit(): void {
  const bun = (globalThis as { Bun?: { unsafe?: { setJITPolicy?: (scale: number) => void } } }).Bun;
  bun?.unsafe?.setJITPolicy?.(RELUCTANT_JIT);
}
