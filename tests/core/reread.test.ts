import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rereadFields } from "../../src/core/capture/reread.ts";
import { extractExplicit } from "../../src/core/capture/explicit.ts";
import type { Memory } from "../../src/core/model/memory.ts";

// What new content brings (core/capture/reread.ts): the readings of the old text replaced by
// those of the new one, hand-given labels kept, explicit fields left to the patch.

const OLD = "We decided to use MySQL over MongoDB for analytics because the team knows it";
const NEW = "We decided to use PostgreSQL for analytics because we need JSONB";

function memory(over: Partial<Memory> = {}): Memory {
  const c = extractExplicit(OLD).capture;
  return {
    id: "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d",
    content: OLD,
    type: "decision",
    decision: c.decision,
    entities: [...c.entities, "Grafana"],
    entity_relations: c.entity_relations.length ? c.entity_relations : undefined,
    fingerprint: c.fingerprint,
    ...over,
  } as Memory;
}

const lower = (xs: unknown) => (xs as string[]).map((x) => x.toLowerCase());

describe("rereadFields", () => {
  test("decision, entities, relations and fingerprint come from the new text; a hand-given entity stays", () => {
    const before = memory();
    assert.ok(lower(before.entities).includes("mysql"));
    const out = rereadFields(before, NEW, { content: NEW });
    const d = out.decision as { what: string; why: string | null; alternatives: string[] };
    assert.match(d.what, /postgresql/i);
    assert.match(d.why ?? "", /JSONB/);
    assert.deepEqual(d.alternatives, []);
    assert.ok(lower(out.entities).includes("postgresql") && lower(out.entities).includes("grafana"), JSON.stringify(out.entities));
    assert.ok(!lower(out.entities).includes("mysql") && !lower(out.entities).includes("mongodb"));
    for (const r of (out.entity_relations as { from: string; to: string }[] | undefined) ?? []) {
      assert.ok(lower(out.entities).includes(r.from.toLowerCase()) && lower(out.entities).includes(r.to.toLowerCase()));
    }
    assert.match(String(out.fingerprint), /^decision:.*postgresql/);
  });

  test("fields the patch gives are left alone; a decision-less memory gets none; a text with no decision keeps its first line as what", () => {
    const given = rereadFields(memory(), NEW, { content: NEW, decision: { what: "x" }, entities: ["A"], entity_relations: [], fingerprint: "f" });
    assert.deepEqual(given, {});
    const fact = rereadFields(memory({ type: "fact", decision: null, fingerprint: undefined }), NEW, { content: NEW });
    assert.equal(fact.decision, undefined);
    assert.equal(fact.fingerprint, undefined);
    const plain = rereadFields(memory(), "The staging box has 16 GB of memory\nand more lines", {});
    assert.deepEqual(plain.decision, { what: "The staging box has 16 GB of memory", why: null, alternatives: [], constraints: [], tradeoffs: [] });
  });
});
