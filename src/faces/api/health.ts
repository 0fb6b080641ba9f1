import type { Hono } from "hono";
import { runOp } from "../../ops/catalogue/run.ts";
import type { StatusOutcome } from "../../ops/status.ts";
import { EDITION } from "../../runtime/edition.ts";
import type { ApiContext } from "./context.ts";
import { errorResponse } from "./errors.ts";

// `GET /v1/health`: the store's health (the status operation), its unpushed commits, and the
// server's syncs: the last one's time and result, the next one's time.

export function healthRoute(app: Hono, api: ApiContext, version: string): void {
  app.get("/v1/health", async (c) => {
    try {
      const s = await api.gate.run(false, () => runOp<StatusOutcome>("status", { env: api.env }, {}));
      return c.json({
        health: s.health,
        reasons: s.reasons,
        store: s.store,
        memories: s.memories?.total ?? null,
        uncommitted_changes: s.uncommitted_changes,
        unpushed_commits: s.unpushed_commits,
        sync: api.sync.state(),
        edition: EDITION,
        version,
      });
    } catch (e) {
      return errorResponse(e);
    }
  });
}
