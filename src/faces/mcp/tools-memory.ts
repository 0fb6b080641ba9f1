export function registerMemoryTools(..._: unknown[]): void {}
