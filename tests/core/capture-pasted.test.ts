import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { extractCaptures } from "../../src/core/capture/extract.ts";
import { machineMade } from "../../src/core/capture/machine-made.ts";
import { prepareText } from "../../src/core/capture/text.ts";

// Pasted tool output is never a memory (issue 15: "pasted logs, test output and build output stored
// as problems"). Written apart from the corpus (none of these is in tune11), in other tools' shapes.

describe("machine-made lines: the shape of a program's output, not its words", () => {
  test("lines of many tools are machine-made", () => {
    for (const line of [
      "main.c:42:15: error: 'argv' undeclared (first use in this function)",
      "E/AndroidRuntime( 4211): Process: com.acme.shop, PID: 4211",
      "    at loadProfile (profile.js:22:11)",
      "[2026-11-27T10:11:12.001Z] airflow.task ERROR - Task failed with exception",
      "Nov 27 03:12:01 mail postfix/smtp[2211]: 4F2A81C0: to=<ana@example.com>, relay=none, delay=30, status=deferred",
      "web-2                      : ok=3    changed=0    unreachable=0    failed=1    skipped=0",
      ' ---> Running in 3f9a2c1b8d7e',
      "   at Acme.Billing.InvoiceService.Calculate(Invoice inv) in C:\\src\\Billing\\InvoiceService.cs:line 77",
      '{"level":"warn","msg":"slow query","ms":812}',
      "ts=2026-11-27T10:00:00Z level=warn msg=retry attempt=3",
      "Tests run: 12, Failures: 2, Errors: 0, Skipped: 1",
      " 78%|███████▊  | 39/50 [00:12<00:03,  3.2it/s]",
      "12 |     let cfg = load();",
      "$ kubectl rollout status deploy/api",
    ]) assert.ok(machineMade(line), line);
  });
  test("a person's lines are not, though they name ports, paths, constants and numbers", () => {
    for (const line of [
      "We moved the database to db.internal:5432 last week.",
      "From now on we set MAX_POOL_SIZE to 20 in every service.",
      "The export job writes to /var/data/exports and nobody reads it.",
      "Heads up: we agreed to drop Mocha for Vitest.",
      "# Decisions from today's sync",
      "- We use pnpm everywhere, never npm.",
      "ok so the plan is to pin numpy to 1.26 across services",
      "We fixed `error TS2307: Cannot find module` by adding paths to tsconfig.",
      "The p95 went from 800ms to 120ms after adding the index.",
      "Raising proxy_read_timeout to 120s fixed the 502s after 30s.",
      'Going forward: API errors are returned as problem+json, e.g. {"type": "about:blank", "status": 404}.',
      "We always start the worker with NODE_ENV=production LOG_LEVEL=info so logs stay small.",
      "We moved the docs to https://docs.acme.io/guide and the old /var/www/docs path is gone.",
      "From now on config lives in ./config/app.yaml, see https://wiki.acme.io/config for why.",
      "  We fixed it by bumping the pool to 50 in /etc/app/db.conf.",
      "We use java.time.Instant for all timestamps, never java.util.Date.",
      "The race in worker.go:88 is fixed by taking the lock before reading the map.",
      "Use std::sync::Arc for shared state, never raw pointers.",
      "Deploys go to us-east-1 first; we never deploy eu-west-1 on Fridays.",
    ]) assert.ok(!machineMade(line), line);
  });
});

describe("capture of messages with pasted output", () => {
  test("output with a bare line of the user's stores nothing", () => {
    for (const text of [
      "gcc says\n\nmain.c: In function 'parse_args':\nmain.c:42:15: error: 'argv' undeclared (first use in this function)\n   42 |     if (strcmp(argv[i], \"-v\") == 0)\n      |               ^~~~\nmake: *** [Makefile:12: main.o] Error 1",
      "ansible blew up\nfatal: [web-2]: FAILED! => {\"changed\": false, \"msg\": \"Failed to download metadata for repo 'appstream'\", \"rc\": 1}\nPLAY RECAP *********************************************************************\nweb-2                      : ok=3    changed=0    unreachable=0    failed=1    skipped=0",
      "Uncaught (in promise) TypeError: Failed to fetch\n    at loadProfile (profile.js:22:11)\n    at HTMLButtonElement.<anonymous> (main.js:9:5)\nprofile.js:22 GET https://api.acme.io/me net::ERR_CONNECTION_REFUSED",
      "bazel build //services/api:server\nERROR: /repo/services/api/BUILD.bazel:14:11: Compiling services/api/server.cc failed: (Exit 1): gcc failed: error executing command\nTarget //services/api:server failed to build\nINFO: Elapsed time: 12.331s, Critical Path: 9.12s",
      "INFO:     127.0.0.1:51234 - \"GET /items/42 HTTP/1.1\" 500 Internal Server Error\nERROR:    Exception in ASGI application\npydantic_core._pydantic_core.ValidationError: 1 validation error for Item",
      "Step 7/12 : RUN pip install -r requirements.txt\n ---> Running in 3f9a2c1b8d7e\nCollecting numpy==1.24.0\n  Downloading numpy-1.24.0.tar.gz (10.9 MB)\nerror: metadata-generation-failed\n\nbuild fails on the python 3.12 image",
      "Login is broken on prod. From the browser console:\nPOST https://api.acme.io/auth/login 403 (Forbidden)\nAccess to fetch at 'https://api.acme.io/auth/login' from origin 'https://app.acme.io' has been blocked by CORS policy: No 'Access-Control-Allow-Origin' header is present on the requested resource.",
      "Our integration tests are flaky again, here's the latest run:\n\n  ✓ creates order (112 ms)\n  ✕ cancels order (5004 ms)\n\n  ● orders › cancels order\n\n    thrown: \"Exceeded timeout of 5000 ms for a test.\"",
      "the deploy to staging has been failing since this morning with this, no idea why\n\nError: UPGRADE FAILED: cannot patch \"api\" with kind Deployment: Deployment.apps \"api\" is invalid: spec.selector: field is immutable",
      "ld: symbol(s) not found for architecture arm64\nclang: error: linker command failed with exit code 1 (use -v to see invocation)\n** BUILD FAILED **",
      "PS C:\\repo> npm run dev\nnpm : File C:\\Program Files\\nodejs\\npm.ps1 cannot be loaded because running scripts is disabled on this system.\nAt line:1 char:1",
      "Started GET \"/admin/orders\" for 10.0.0.4 at 2026-11-27 09:00:12 +0000\nProcessing by Admin::OrdersController#index as HTML\nCompleted 500 Internal Server Error in 41ms (ActiveRecord: 3.1ms | Allocations: 2211)\n\nNoMethodError (undefined method `name' for nil:NilClass):",
      "aws s3 cp fails\nupload failed: ./dist/app.js to s3://acme-web/app.js An error occurred (AccessDenied) when calling the PutObject operation: Access Denied",
      "$ terraform apply\nError: Error acquiring the state lock\nLock Info:\n  ID:        9d1f2c3a-77b0-4a51-9c3e-0b2d4f6e8a11\n  Operation: OperationTypeApply\n\nthe apply keeps failing",
    ]) {
      const x = extractCaptures(text);
      assert.deepEqual(x.captures.map((c) => `${c.type}: ${c.content}`), [], text.slice(0, 60));
    }
  });
  test("what the user says beside a pasted line is kept: a fix, a decision, a problem with its cause", () => {
    const cases: [string, string][] = [
      ["We fixed the `ECONNREFUSED 172.18.0.3:5432` on startup by adding a healthcheck to postgres.", "solution"],
      ["From now on we pin base images by digest in every Dockerfile, after `npm ci` broke twice on a moved node:20 tag.", "decision"],
      ["The Celery timeout at /srv/app/reports came from the PDF renderer loading every font; we switched to a font subset and it runs in 8s now.", "solution"],
      ["The upload endpoint returned `413 Request Entity Too Large` for files over 1MB; raising client_max_body_size to 50m in nginx fixed it.", "solution"],
      ["We moved the docs to https://docs.acme.io/guide and the old /var/www/docs path is gone.", "solution"],
      ["ERROR pool exhausted\nERROR pool exhausted\nWe fixed it in ./src/db/pool.ts by raising the pool to 50.", "solution"],
      ["Team agreed today: every service exposes /metrics for Prometheus. For reference, the current scrape errors:\n\nlevel=warn ts=2026-11-27T08:00:00Z caller=scrape.go:1400 msg=\"Append failed\" err=\"out of bounds\"", "decision"],
      ["We're switching the e2e suite from Cypress to Playwright; this flake was the last straw:\n\n  1) Checkout\n       pays with card:\n     AssertionError: Timed out retrying after 4000ms: Expected to find element: [data-cy=pay], but never found it.", "decision"],
      ["The Heroku H12 timeouts on /reports were the PDF export running in the request; we moved it to a background job and the 503s are gone.", "solution"],
      ['Going forward: API errors are returned as problem+json, e.g. {"type": "about:blank", "status": 404}.', "decision"],
      ["ERROR sync failed\nERROR sync failed\nWe decided to add retries with exponential backoff to the sync client.", "decision"],
      ["[ERROR] pool exhausted\n[WARN] retrying in 5s\n\nThe problem is that the DB connection pool is exhausted under load.", "problem"],
    ];
    for (const [text, type] of cases) assert.deepEqual(extractCaptures(text).captures.map((c) => c.type), [type], text);
  });
  test("an introduction of output alone stores nothing and says why", () => {
    const x = extractCaptures("the deploy keeps failing with this:\nError: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress");
    assert.deepEqual(x.captures, []);
    assert.match(x.reason ?? "", /log or tool output/);
  });
  test("the output is set aside and counted; its share is known", () => {
    const p = prepareText("CI says\n\nFAIL  src/a.test.ts > adds\nAssertionError: expected 3 to be 4\n ❯ src/a.test.ts:4:17\n\nany idea?");
    assert.equal(p.text.replace(/\s+/g, " ").trim(), "CI says any idea?");
    assert.ok(p.pastedShare > 0.7, String(p.pastedShare));
    assert.equal(prepareText("We use pnpm everywhere.").pastedShare, 0);
  });
});
