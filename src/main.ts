import { runCli } from "./faces/cli/main.ts";
import { args, setExitCode } from "./runtime/host.ts";

setExitCode(await runCli(args()));
