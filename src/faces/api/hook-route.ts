import type { Hono } from "hono";
import { homeDir } from "../../runtime/host.ts";
import { failed, type HookReply } from "../hooks/reply.ts";
import type { ApiContext } from "./context.ts";

// `POST /v1/hooks/{event}`: Claude Code's `type: "http"` hooks (and anyone with curl) send the
// same payloads `memsync hook EVENT` reads on standard input and get the same hook JSON back
// (faces/hooks/run-hook.ts, shared). The agent's folders are not on this machine, so the project
// comes from `?project=NAME` (else the payload's cwd, if it is a repository here). Like the
// command, the route always answers 200: a hook never breaks the session.

export function hookRoutes(app: Hono, api: ApiContext): void {
  app.post("/v1/hooks/:event", async (c) => {
    const event = c.req.param("event");
    const project = c.req.query("project");
    let reply: HookReply;
    try {
      const text = await c.req.text();
      const { runHook } = await import("../hooks/run-hook.ts");
      reply = await api.gate.run(true, () =>
        runHook(event, text, {
          env: { ...api.env, open: { ...api.env.open, busyTimeoutMs: 3_000 } },
          claude: { home: homeDir() },
          cwd: "/",
          self: [...api.self],
          memoryMd: false,
          ...(project ? { project } : {}),
          // the server's one sync runner: started, never waited for here (see GET /v1/health)
          startSync: async (verb) => {
            void api.sync.run(verb);
            return { state: "running" };
          },
        }),
      );
    } catch (e) {
      reply = failed(e instanceof Error ? e.message : String(e));
    }
    return c.json(reply);
  });
}
