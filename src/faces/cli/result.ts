/** What a command hands back to the CLI shell: its output and exit code. */
export interface CommandResult {
  stdout: string;
  stderr?: string;
  exitCode?: number;
}
