import { quickRoute } from "./faces/cli/quick.ts";
import { args, setExitCode } from "./runtime/host.ts";

// A hook, the merge driver and a plain get run without loading the command-line parser (quick.ts).
const argv = args();
const quick = quickRoute(argv);
setExitCode(await (quick ? quick() : (await import("./faces/cli/main.ts")).runCli(argv)));
