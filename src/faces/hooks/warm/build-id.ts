// Which build this binary is: scripts/build.ts defines MEMSYNC_BUILD_ID, new for every build. The
// warm hook server answers only clients of its own build (an upgraded binary's hooks get a new
// server); run from source there is none, and no warm path.

declare const MEMSYNC_BUILD_ID: string | undefined;

export const BUILD_ID: string | null = typeof MEMSYNC_BUILD_ID === "string" ? MEMSYNC_BUILD_ID : null;
