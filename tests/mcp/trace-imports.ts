import { plugin } from "bun";
import fs from "node:fs";

// Preloaded by cold-start.test.ts: every module resolution of the run, one line each, into
// $TRACE_FILE (resolution continues as usual).

const out = process.env.TRACE_FILE!;
plugin({
  name: "trace-imports",
  setup(build) {
    build.onResolve({ filter: /.*/ }, (a) => {
      fs.appendFileSync(out, `${a.importer} -> ${a.path}\n`);
      return undefined;
    });
  },
});
