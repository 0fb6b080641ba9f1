import type { McpServer, ToolAnnotations } from "@modelcontextprotocol/server";
import { CATALOGUE, type OpCall, type OpInfo } from "../../ops/catalogue/index.ts";
import { runOp } from "../../ops/catalogue/run.ts";
import { processGate } from "../../ops/gate.ts";
import { errorResult, jsonResult } from "./results.ts";
import { described, isObjectSchema, type JsonSchema } from "./schemas.ts";
import { inputJsonSchema, outputJsonSchema } from "../../ops/catalogue/json-schema.ts";

// The `memsync` profile: one tool per catalogue entry, derived from the entry alone (name,
// summary, flags, input and output schemas), so an entry added to the catalogue is a tool without
// a change here. The edge build's catalogue has no maintenance entries, so neither has its server.

/** Smaller first pages than the CLI's: an agent pages on (limit) rather than reading 50 memories. */
const MCP_DEFAULTS: Record<string, Record<string, unknown>> = { list: { limit: 20 }, search: { limit: 10 } };

export interface ToolDef {
  name: string;
  description: string;
  annotations: ToolAnnotations;
  input: JsonSchema;
  output: JsonSchema;
  /** The output is not an object: structuredContent wraps it as {result}. */
  wrap: boolean;
  readOnly: boolean;
}

export function annotationsOf(info: Pick<OpInfo, "readOnly" | "destructive" | "idempotent">): ToolAnnotations {
  return { readOnlyHint: info.readOnly, destructiveHint: info.destructive, idempotentHint: info.idempotent, openWorldHint: false };
}

async function toolDef(info: OpInfo): Promise<ToolDef> {
  // the catalogue's documents (ops/catalogue/json-schema.ts), without the dialect line and title
  const { $schema: _i, title: _t, description: _d, ...input } = await inputJsonSchema(info.name);
  const props = input.properties as Record<string, Record<string, unknown>> | undefined;
  for (const [k, v] of Object.entries(MCP_DEFAULTS[info.name] ?? {})) if (props?.[k]) props[k] = { ...props[k], default: v };
  const { $schema: _o, ...declared } = await outputJsonSchema(info.name);
  let output: JsonSchema = declared;
  const wrap = !isObjectSchema(output);
  if (wrap) output = { type: "object", properties: { result: output }, required: ["result"] };
  const flags = [info.readOnly ? "read-only" : "writes the store", info.destructive ? "destructive" : "", info.maintenance ? "maintenance (the store's maintainer machine)" : ""].filter(Boolean);
  const description = `${info.summary[0]!.toUpperCase()}${info.summary.slice(1)} (${flags.join("; ")}). Failures are isError results with a code: usage, not_found, invalid_input, conflict, unavailable, timeout, corrupt${info.readOnly ? "" : ", read_only"}.`;
  return { name: info.name, description, annotations: annotationsOf(info), input, output, wrap, readOnly: info.readOnly };
}

let defs: Promise<ToolDef[]> | undefined;

/** The profile's tool definitions, built once per process (never per request). */
export function memsyncToolDefs(): Promise<ToolDef[]> {
  defs ??= Promise.all(CATALOGUE.map(toolDef));
  return defs;
}

export async function registerMemsyncTools(server: McpServer, callOf: () => OpCall): Promise<void> {
  for (const def of await memsyncToolDefs()) {
    server.registerTool(
      def.name,
      { description: def.description, inputSchema: described(def.input), outputSchema: described(def.output), annotations: def.annotations },
      async (args: Record<string, unknown>) => {
        try {
          const input = { ...(MCP_DEFAULTS[def.name] ?? {}), ...args };
          // one writer at a time in this process (ops/gate.ts): calls may arrive together
          const out = await processGate.run(!def.readOnly, () => runOp(def.name, callOf(), input));
          return jsonResult(def.wrap ? { result: out } : (out as Record<string, unknown>), def.readOnly);
        } catch (e) {
          return errorResult(e);
        }
      },
    );
  }
}
