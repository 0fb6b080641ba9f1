import type { McpServer, ToolAnnotations } from "@modelcontextprotocol/server";
import { CATALOGUE, type OpCall, type OpInfo } from "../../ops/catalogue/index.ts";
import { runOp } from "../../ops/catalogue/run.ts";
import { processGate } from "../../ops/gate.ts";
import { errorResult, jsonResult } from "./results.ts";
import { described, isObjectSchema, type JsonSchema, jsonSchemaOf } from "./schemas.ts";

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
  const impl = (await info.load()) as { input: unknown; output?: () => Promise<unknown> };
  const input = jsonSchemaOf(impl.input, "input");
  const props = input.properties as Record<string, Record<string, unknown>> | undefined;
  for (const [k, v] of Object.entries(MCP_DEFAULTS[info.name] ?? {})) if (props?.[k]) props[k] = { ...props[k], default: v };
  // the output schema, where the catalogue declares one (issue 11: output schemas)
  let output: JsonSchema = { type: "object" };
  if (typeof impl.output === "function") output = jsonSchemaOf(await impl.output(), "output");
  const wrap = !isObjectSchema(output);
  if (wrap) output = { type: "object", properties: { result: output }, required: ["result"] };
  const flags = [info.readOnly ? "read-only" : "writes the store", info.destructive ? "destructive" : "", info.maintenance ? "maintenance (the store's maintainer machine)" : ""].filter(Boolean);
  const description = `${info.summary[0]!.toUpperCase()}${info.summary.slice(1)} (${flags.join("; ")}). Failures are isError results with a code: usage, not_found, invalid_input, conflict, unavailable, corrupt.`;
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
