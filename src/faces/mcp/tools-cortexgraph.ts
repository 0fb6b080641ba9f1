export function registerCortexgraphTools(..._: unknown[]): void {}
