import assert from "node:assert/strict";
import { test } from "node:test";
import { metaProblem } from "../../src/core/model/meta-check.ts";
import { StoreMetaSchema } from "../../src/core/model/store-meta.ts";
import { parseWith } from "../../src/core/model/validate.ts";
import { layoutSettingsFrom } from "../../src/core/model/vocab.ts";

// The hand-written .meta.json check (every command, without the schema library) must accept and
// refuse what StoreMetaSchema does, in the same words: then all commands refuse a broken store
// alike, whether or not they loaded the schemas.

const GOOD = {
  storage_version: 2,
  created_at: 1795486763,
  machine_id: null,
  last_gc_at: null,
  last_consolidation_at: null,
  migrated_from: null,
  settings: {
    layout: "auto",
    shard_threshold: 1000,
    maintainer: null,
    decay: { model: "power_law", beta: 0.6, half_life_days: 3, alpha: 1.1, lambda: 2e-6, fast_lambda: 1e-5, slow_lambda: 1e-6, fast_weight: 0.7 },
    forget_threshold: 0.05,
    promote: { threshold: 0.65, min_uses: 5, window_days: 14 },
    danger_zone: { min: 0.15, max: 0.35 },
  },
};

type Edit = (m: any) => void;

const EDITS: Record<string, Edit> = {
  "nothing": () => {},
  "minimal": (m) => {
    for (const k of ["machine_id", "last_gc_at", "last_consolidation_at", "migrated_from", "settings"]) delete m[k];
  },
  "empty settings": (m) => (m.settings = {}),
  "settings a number": (m) => (m.settings = 5),
  "settings null": (m) => (m.settings = null),
  "settings an array": (m) => (m.settings = []),
  "created_at a string": (m) => (m.created_at = "yesterday"),
  "created_at missing": (m) => delete m.created_at,
  "created_at negative": (m) => (m.created_at = -1),
  "machine_id a number": (m) => (m.machine_id = 7),
  "last_gc_at a string": (m) => (m.last_gc_at = "x"),
  "migrated_from an object": (m) => (m.migrated_from = {}),
  "layout unknown": (m) => (m.settings.layout = "weird"),
  "shard_threshold fractional": (m) => (m.settings.shard_threshold = 1.5),
  "shard_threshold negative": (m) => (m.settings.shard_threshold = -1),
  "shard_threshold a string": (m) => (m.settings.shard_threshold = "10"),
  "maintainer a number": (m) => (m.settings.maintainer = 3),
  "decay a string": (m) => (m.settings.decay = "fast"),
  "decay model unknown": (m) => (m.settings.decay.model = "linear"),
  "beta negative": (m) => (m.settings.decay.beta = -1),
  "half life zero": (m) => (m.settings.decay.half_life_days = 0),
  "fast_weight above 1": (m) => (m.settings.decay.fast_weight = 1.5),
  "min_uses zero": (m) => (m.settings.promote.min_uses = 0),
  "danger zone max a string": (m) => (m.settings.danger_zone.max = "x"),
  "forget_threshold null": (m) => (m.settings.forget_threshold = null),
  "many at once": (m) => {
    m.created_at = "x";
    m.machine_id = 1;
    m.settings.layout = 1;
    m.settings.decay.beta = -2;
    m.settings.promote.min_uses = "x";
  },
  "unknown keys kept": (m) => {
    m.future_field = { a: 1 };
    m.settings.future = true;
  },
};

test("metaProblem agrees with StoreMetaSchema, word for word", () => {
  const differ: string[] = [];
  for (const [name, edit] of Object.entries(EDITS)) {
    const m = structuredClone(GOOD);
    edit(m);
    const schema = parseWith(StoreMetaSchema, m);
    const mine = metaProblem(m);
    if (mine !== (schema.ok ? null : schema.problem)) differ.push(`${name}: ${mine} / schema: ${schema.ok ? null : schema.problem}`);
  }
  assert.deepEqual(differ, []);
});

// a save reads the layout settings from the checked .meta.json without the schema (issue 16):
// on every .meta.json the check accepts, they are the schema's, defaults included
test("layoutSettingsFrom gives the schema's layout and shard_threshold on every accepted .meta.json", () => {
  const more: Record<string, Edit> = {
    "layout flat": (m) => (m.settings.layout = "flat"),
    "layout sharded, threshold 0": (m) => {
      m.settings.layout = "sharded";
      m.settings.shard_threshold = 0;
    },
    "layout missing": (m) => delete m.settings.layout,
    "threshold missing": (m) => delete m.settings.shard_threshold,
    "threshold 7, layout missing": (m) => {
      delete m.settings.layout;
      m.settings.shard_threshold = 7;
    },
  };
  let accepted = 0;
  for (const [name, edit] of Object.entries({ ...EDITS, ...more })) {
    const m = structuredClone(GOOD);
    edit(m);
    if (metaProblem(m) !== null) continue;
    accepted++;
    const schema = parseWith(StoreMetaSchema, m);
    assert.ok(schema.ok, name);
    const { layout, shard_threshold } = schema.value.settings;
    assert.deepEqual(layoutSettingsFrom(m.settings), { layout, shard_threshold }, name);
  }
  assert.ok(accepted >= 8, `accepted ${accepted}`);
});
