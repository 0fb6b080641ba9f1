import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as kg from "../../src/core/knowledge-graph.ts";

// The reference memory server's graph rules (core/knowledge-graph.ts), including its quirks, which
// the memory MCP profile must keep to answer as the reference does (tests/mcp/memory-diff.test.ts
// checks the whole against the real server).

const g0 = (): kg.Graph => ({ entities: [], relations: [] });

describe("knowledge graph rules", () => {
  test("a name already present is not created again, but a batch may repeat one", () => {
    const g = g0();
    assert.equal(kg.createEntities(g, [{ name: "a", entityType: "t", observations: [] }]).length, 1);
    const again = kg.createEntities(g, [
      { name: "a", entityType: "t", observations: [] },
      { name: "b", entityType: "t", observations: [] },
      { name: "b", entityType: "u", observations: [] },
    ]);
    assert.deepEqual(again.map((e) => e.name), ["b", "b"]);
    assert.deepEqual(g.entities.map((e) => e.name), ["a", "b", "b"]);
  });

  test("observations: deduplicated against the entity's, not within one call; a missing entity throws and the graph keeps nothing", () => {
    const g = g0();
    kg.createEntities(g, [{ name: "a", entityType: "t", observations: ["x"] }]);
    assert.deepEqual(kg.addObservations(g, [{ entityName: "a", contents: ["x", "y", "y"] }]), [{ entityName: "a", addedObservations: ["y", "y"] }]);
    assert.throws(() => kg.addObservations(g, [{ entityName: "nope", contents: ["z"] }]), /Entity with name nope not found/);
    kg.deleteObservations(g, [{ entityName: "a", observations: ["y"] }, { entityName: "nope", observations: ["x"] }]);
    assert.deepEqual(g.entities[0]!.observations, ["x"]);
  });

  test("relations may name missing entities; deleting an entity takes its relations; search and open include touching relations", () => {
    const g = g0();
    kg.createEntities(g, [{ name: "Alice", entityType: "person", observations: ["likes Tea"] }]);
    kg.createRelations(g, [{ from: "Alice", to: "Zed", relationType: "knows" }, { from: "Alice", to: "Zed", relationType: "knows" }]);
    assert.equal(g.relations.length, 2, "a batch is checked against the graph only");
    assert.deepEqual(kg.searchNodes(g, "TEA").entities.map((e) => e.name), ["Alice"]);
    assert.equal(kg.openNodes(g, ["Alice"]).relations.length, 2);
    assert.deepEqual(kg.openNodes(g, ["Zed"]), { entities: [], relations: [] });
    kg.deleteRelations(g, [{ from: "Alice", to: "Zed", relationType: "knows" }]);
    assert.equal(g.relations.length, 0);
    kg.createRelations(g, [{ from: "Zed", to: "Alice", relationType: "knows" }]);
    kg.deleteEntities(g, ["Alice"]);
    assert.deepEqual(g, g0());
  });
});
