import { isBrief, quickRoute } from "./faces/cli/quick.ts";
import { args, setExitCode, usualJit } from "./runtime/host.ts";
import { mark } from "./runtime/cold-trace.ts";

mark("start: Bun and the entry's modules");

// A hook, the merge driver and a plain get run without loading the command-line parser; a command
// that may run long gets the usual JIT policy (the binary starts reluctant: faces/cli/quick.ts).
const argv = args();
if (!isBrief(argv)) usualJit();
const quick = quickRoute(argv);
setExitCode(await (quick ? quick() : (await import("./faces/cli/main.ts")).runCli(argv)));
