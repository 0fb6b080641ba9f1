import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, test } from "node:test";
import { jsonSchemas } from "../../src/core/model/json-schema.ts";

// The published JSON Schemas must be exactly what the valibot schemas generate (npm run schema).
describe("schema/*.schema.json", () => {
  for (const [name, schema] of Object.entries(jsonSchemas())) {
    test(`${name}.schema.json is current`, () => {
      const file = new URL(`../../schema/${name}.schema.json`, import.meta.url);
      assert.equal(fs.readFileSync(file, "utf8"), `${JSON.stringify(schema, null, 2)}\n`, "run: npm run schema");
    });
  }
});
