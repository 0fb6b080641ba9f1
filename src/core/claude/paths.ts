// Where Claude Code keeps a project's files, computed exactly as Claude Code names them: the
// project's path with every character that is not an ASCII letter or digit replaced by "-"
// ("/home/me/my.app_x" -> "-home-me-my-app-x"; OrchestKit missed ".", others "_" and spaces).
// Claude Code shortens names longer than MAX_NAME and appends a hash of its own; for those, the
// folder that already exists with the shortened prefix is used (see findProjectDir in ops).

export const MAX_NAME = 200;

export function encodeProjectPath(projectPath: string): string {
  return projectPath.replace(/[^a-zA-Z0-9]/g, "-");
}

/** The folder name, or for an over-long path the prefix Claude Code's folder name starts with. */
export function projectDirName(projectPath: string): { name: string; exact: boolean } {
  const name = encodeProjectPath(projectPath);
  return name.length <= MAX_NAME ? { name, exact: true } : { name: name.slice(0, MAX_NAME), exact: false };
}
