// scripts/chaos: many clones of one remote, random acknowledged operations while they sync, random
// SIGKILLs, then: nothing acknowledged may be lost (tests/chaos/harness.ts, checks.ts). Prints a
// markdown report (for docs/benchmarks.md) on stdout, progress on stderr; exits 1 on any loss or
// failed check, 2 on bad options. Needs the built binary (bun scripts/build.ts).
//
//   scripts/chaos                          8 local-path clones + 1 over HTTP, 10,000 operations, 200 kills
//   scripts/chaos --clones 4 --http 1 --ops 1000 --kills 40
//   scripts/chaos --serve-clones 1         one more clone with `memsync serve` on its tree, written to over HTTP, killed and restarted
//   scripts/chaos --seed 12345             repeat a run's random choices (printed in every report)
//   scripts/chaos --max-seconds 7200       stop starting operations after this (targets unmet: a failure)
//   scripts/chaos --shared 12              memories made first and touched in same-instant bursts
//   scripts/chaos --fault-share 0.5        share of kills by MEMSYNC_FAULT=object:N (if supported)
//   scripts/chaos --kill-delay 300         timed kills land 0..N ms after the spawn
//   scripts/chaos --no-remote-checks       no git rev-list of the remote after each killed push
//   scripts/chaos --gc-auto 300 --gc-auto-pack-limit 4   repack often (git's limits in every clone)
//   scripts/chaos --maintenance 0.15       the first clone runs consolidate --apply / split / gc (--archive)
//                                          as this share of its operations (the default; 0: none), and
//                                          the saves make work for them
//   scripts/chaos --keep                   keep the temp folder even when the run passes
//   scripts/chaos --bin PATH               another binary (default dist/memsync, or $MEMSYNC_BIN)
//   scripts/chaos --quick                  the short form of the test suite (2 + 1 clones, 300 operations)
//   scripts/chaos --env MEMSYNC_BOUNDED_FROM=10   a variable given to every memsync process (repeatable;
//                                          the caller's MEMSYNC_* are not passed on): here recall's impact
//                                          postings built and merged in the chaos's small stores

import { type ChaosOptions, defaults, LONG_FORM, runChaos, SHORT_FORM } from "../tests/chaos/harness.ts";
import { reportLines } from "../tests/chaos/report.ts";

function usage(code: number): never {
  console.error("usage: scripts/chaos [--clones 8] [--http 1] [--serve-clones 0] [--ops 10000] [--kills 200] [--seed N] [--max-seconds 7200] [--shared 12] [--fault-share 0.5] [--kill-delay 300] [--no-remote-checks] [--gc-auto N] [--gc-auto-pack-limit N] [--maintenance 0.15] [--keep] [--bin PATH] [--env KEY=VALUE] [--quick]");
  process.exit(code);
}

const argv = process.argv.slice(2);
const o: Partial<ChaosOptions> = { ...(argv.includes("--quick") ? SHORT_FORM : LONG_FORM) };
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i]!;
  const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
  const value = () => inline ?? argv[++i] ?? usage(2);
  const num = (min: number, int = true) => {
    const v = value();
    const x = Number(v.replace(/[_,]/g, ""));
    if (!Number.isFinite(x) || x < min || (int && !Number.isInteger(x))) {
      console.error(`chaos: ${flag} needs ${int ? "an integer" : "a number"} >= ${min}, got ${v}`);
      process.exit(2);
    }
    return x;
  };
  switch (flag) {
    case "--clones":
      o.localClones = num(1);
      break;
    case "--http":
      o.httpClones = num(0);
      break;
    case "--serve-clones":
      o.serveClones = num(0);
      break;
    case "--ops":
      o.ops = num(1);
      break;
    case "--kills":
      o.kills = num(0);
      break;
    case "--seed":
      o.seed = num(0);
      break;
    case "--max-seconds":
      o.maxSeconds = num(1);
      break;
    case "--shared":
      o.sharedMemories = num(1);
      break;
    case "--fault-share":
      o.faultShare = Math.min(1, num(0, false));
      break;
    case "--kill-delay":
      o.killDelayMs = num(1);
      break;
    case "--no-remote-checks":
      o.remoteChecks = false;
      break;
    case "--gc-auto":
      o.gcAuto = num(0);
      break;
    case "--gc-auto-pack-limit":
      o.gcAutoPackLimit = num(0);
      break;
    case "--maintenance":
      o.maintenance = Math.min(1, num(0, false));
      break;
    case "--keep":
      o.keep = true;
      break;
    case "--bin":
      o.bin = value();
      break;
    case "--env": {
      const kv = value();
      const eq = kv.indexOf("=");
      if (eq < 1) {
        console.error(`chaos: --env needs KEY=VALUE, got ${kv}`);
        process.exit(2);
      }
      o.env = { ...o.env, [kv.slice(0, eq)]: kv.slice(eq + 1) };
      break;
    }
    case "--quick":
      break;
    case "-h":
    case "--help":
      usage(0);
    default:
      console.error(`chaos: unknown option ${arg}`);
      usage(2);
  }
}

const opts = defaults({ ...o, log: (line) => console.error(line) });
try {
  const r = await runChaos(opts);
  console.log(reportLines(r).join("\n"));
  process.exit(r.failures.length ? 1 : 0);
} catch (e) {
  console.error(`chaos (seed ${opts.seed}): ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
