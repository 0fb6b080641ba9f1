import assert from "node:assert/strict";
import { git, memsync, newStore, tempDir } from "./env.ts";
import { type GitHttpServer, startGitHttpServer } from "./git-http-server.ts";

/**
 * A store whose remote is a bare repository served over smart HTTP on 127.0.0.1 (its hold() keeps
 * a sync's requests waiting until released): `fn` runs with both; the git server is closed after.
 */
export async function withHttpRemote(fn: (store: string, remote: GitHttpServer) => Promise<void>): Promise<void> {
  const root = tempDir();
  assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
  const remote = await startGitHttpServer(root);
  try {
    const store = newStore();
    assert.equal(memsync(["--store", store, "remote", "set", remote.url("hub.git"), "--insecure-http"]).code, 0);
    await fn(store, remote);
  } finally {
    await remote.close();
  }
}
