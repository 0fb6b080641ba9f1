// What the hook's process and its store's warm server (warm/server.ts) say to each other: one
// request per connection, one line of JSON each way, then the server closes. The request holds
// everything the answer depends on, so the server answers as the hook's own process would: the
// event, its standard input, the working folder, the environment variables a hook reads, how to
// run this memsync again, and the build, as the two must be the same program.

/** The environment variables the hook's path reads (runtime/ops-env.ts VARS, hook.ts claudeEnv, host.ts). */
export const HOOK_VARS = [
  "MEMSYNC_HOME",
  "MEMSYNC_MACHINE",
  "MEMSYNC_VAULT",
  "MEMSYNC_GIT_TOKEN",
  "MEMSYNC_BUSY_TIMEOUT_MS",
  "MEMSYNC_HTTP_IDLE_TIMEOUT_MS",
  "XDG_CONFIG_HOME",
  "HOME",
  "MEMSYNC_USER",
  "USER",
  "LOGNAME",
  "CLAUDE_CONFIG_DIR",
  "CLAUDE_PROJECT_DIR",
] as const;

export interface WarmRequest {
  /** The build of the client (scripts/build.ts MEMSYNC_BUILD_ID): another build is never answered. */
  build: string;
  event: string;
  /** `hook`'s arguments after the event word that change the answer. */
  memoryMd: boolean;
  /** --store as given, or absent. */
  store?: string;
  stdin: string;
  cwd: string;
  /** The client's home folder (host.ts homeDir: HOME, else the user's entry). */
  home: string;
  vars: Partial<Record<(typeof HOOK_VARS)[number], string>>;
  /** How to run this memsync again (runtime/self.ts selfCommand). */
  self: string[];
}

/**
 * answer: the hook's output, exactly as the in-process path prints it. inProcess: the server
 * changed nothing and the client must run the hook itself (a write is needed, the build differs,
 * the server is stopping, or anything failed).
 */
export type WarmReply = { answer: string } | { inProcess: string };
