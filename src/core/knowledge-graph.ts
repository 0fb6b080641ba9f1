// The reference memory server's knowledge graph (@modelcontextprotocol/server-memory), as pure
// functions on a graph value: the same rules, so the `memory` MCP profile answers as the
// reference does (entities and relations in creation order; a name already present is not
// created again, though a batch may repeat one; observations deduplicated only against those an
// entity already has; relations may name entities that do not exist). Where the graph lives is
// the caller's: memsync keeps each entity and each relation as a memory record (faces/mcp).

export interface Entity {
  name: string;
  entityType: string;
  observations: string[];
}

export interface Relation {
  from: string;
  to: string;
  relationType: string;
}

export interface Graph {
  entities: Entity[];
  relations: Relation[];
}

const sameRelation = (a: Relation, b: Relation) => a.from === b.from && a.to === b.to && a.relationType === b.relationType;

export const entityOf = (e: Entity): Entity => ({ name: e.name, entityType: e.entityType, observations: [...e.observations] });
export const relationOf = (r: Relation): Relation => ({ from: r.from, to: r.to, relationType: r.relationType });

/** A copy that the operations below may change without touching the original. */
export const cloneGraph = (g: Graph): Graph => ({ entities: g.entities.map(entityOf), relations: g.relations.map(relationOf) });

export function createEntities(g: Graph, entities: readonly Entity[]): Entity[] {
  const created = entities.filter((e) => !g.entities.some((x) => x.name === e.name)).map(entityOf);
  g.entities.push(...created);
  return created.map(entityOf);
}

export function createRelations(g: Graph, relations: readonly Relation[]): Relation[] {
  const created = relations.filter((r) => !g.relations.some((x) => sameRelation(x, r))).map(relationOf);
  g.relations.push(...created);
  return created.map(relationOf);
}

export class EntityNotFound extends Error {}

/** Throws EntityNotFound (and the caller keeps nothing of the call) when a name has no entity. */
export function addObservations(g: Graph, observations: readonly { entityName: string; contents: string[] }[]): { entityName: string; addedObservations: string[] }[] {
  return observations.map((o) => {
    const entity = g.entities.find((e) => e.name === o.entityName);
    if (!entity) throw new EntityNotFound(`Entity with name ${o.entityName} not found`);
    const added = o.contents.filter((c) => !entity.observations.includes(c));
    entity.observations.push(...added);
    return { entityName: o.entityName, addedObservations: added };
  });
}

export function deleteEntities(g: Graph, names: readonly string[]): void {
  g.entities = g.entities.filter((e) => !names.includes(e.name));
  g.relations = g.relations.filter((r) => !names.includes(r.from) && !names.includes(r.to));
}

export function deleteObservations(g: Graph, deletions: readonly { entityName: string; observations: string[] }[]): void {
  for (const d of deletions) {
    const entity = g.entities.find((e) => e.name === d.entityName);
    if (entity) entity.observations = entity.observations.filter((o) => !d.observations.includes(o));
  }
}

export function deleteRelations(g: Graph, relations: readonly Relation[]): void {
  g.relations = g.relations.filter((r) => !relations.some((d) => sameRelation(r, d)));
}

/** Entities whose name, type or an observation contains the query (any case), and relations touching them. */
export function searchNodes(g: Graph, query: string): Graph {
  const q = query.toLowerCase();
  const entities = g.entities.filter((e) => e.name.toLowerCase().includes(q) || e.entityType.toLowerCase().includes(q) || e.observations.some((o) => o.toLowerCase().includes(q)));
  return withTouching(g, entities);
}

export function openNodes(g: Graph, names: readonly string[]): Graph {
  return withTouching(g, g.entities.filter((e) => names.includes(e.name)));
}

function withTouching(g: Graph, entities: Entity[]): Graph {
  const names = new Set(entities.map((e) => e.name));
  return { entities: entities.map(entityOf), relations: g.relations.filter((r) => names.has(r.from) || names.has(r.to)).map(relationOf) };
}
