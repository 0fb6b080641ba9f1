import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { tokenFor } from "../../src/sync/credentials.ts";
import { tempDir } from "../helpers/env.ts";

// Where an HTTP remote's token comes from: the environment, else a file only its owner reads.

describe("tokenFor", () => {
  test("the environment wins; else the longest matching prefix of the credentials file", () => {
    const file = path.join(tempDir(), "credentials");
    fs.writeFileSync(file, "# tokens\nhttps://git.example.com/ general\nhttps://git.example.com/team/ team-token\n", { mode: 0o600 });
    assert.equal(tokenFor("https://git.example.com/team/memories.git", { token: "env-token", file }), "env-token");
    assert.equal(tokenFor("https://git.example.com/team/memories.git", { file }), "team-token");
    assert.equal(tokenFor("https://git.example.com/other.git", { file }), "general");
    assert.equal(tokenFor("https://elsewhere.example/x.git", { file }), undefined);
    assert.equal(tokenFor("https://x", { file: path.join(tempDir(), "missing") }), undefined);
  });

  test("a credentials file others can read is refused", () => {
    const file = path.join(tempDir(), "credentials");
    fs.writeFileSync(file, "https://git.example.com/ t\n", { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    assert.throws(() => tokenFor("https://git.example.com/x", { file }), /chmod 600/);
  });
});
