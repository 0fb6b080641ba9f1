// Whether a line of a prompt was printed by a program rather than written by the person: the
// general shapes of logs, test runners, compilers, package managers, stack traces, tables and
// JSON, not any tool's words. A line is machine-made on one strong shape or on two weak ones; code
// tokens (file:line, qualified names, hashes) and weak shapes never outweigh a sentence in the first
// person or of mostly plain words. Words the person quoted in backticks are theirs and are not
// looked at ("we fixed `TS2307` by ...").

/** A shell's prompt before a command: "$ npm test", "PS C:\\repo> npm run dev", "dev@box:~/app$ make". */
export const PROMPT = /^\s*\$\s+\S|^\s*(?:PS\s+)?[A-Z]:\\[^>\n]{0,120}>\s*\S|^\s*[\w.-]{1,40}@[\w.-]{1,60}:[~/][^$#\n]{0,120}[$#]\s/;

/** Shapes no person types in a sentence. */
const STRONG: RegExp[] = [
  // a timestamp: 2026-11-27 08:12, 2026/11/27 08:12:44, 27/Nov/2026:08:12:44, 10:42:18, epoch seconds
  /\b\d{4}[-/]\d{2}[-/]\d{2}[T ]\d{2}:\d{2}|\b\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}|\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b|\b1[5-9]\d{8}(?:\.\d+)?\b/,
  // a stack frame or backtrace line: "at f (x)", "File "x", line 3", "+0x4a", "   0: rust_begin_unwind"
  /^\s*at\s+\S|^\s*File\s+"|\+0x[0-9a-f]+|^\s*\d+:\s+[\w:<>]+$|^\s*(?:goroutine|thread)\s+['"\w-]+\s*(?:\[|panicked)|\.\.\.\s*\d+\s+more\b/,
  // a line that is a JSON object, or a run of logfmt's key=value from its start
  /^\s*[[{]\s*"|^\s*(?:[\w.-]{1,40}=(?:"[^"]{0,120}"|\S{1,120})\s+){2,}\S/,
  // a gutter or a frame: "12 |", "api-1  | ", "│ ", "╷", "-/+ ", "  ~ x = y", a tree or box line
  /^\s*\d+\s*\|(?:\s|$)|^\s*[\w.-]+\s{2,}\|\s|^\s*[│┃╷╵├└┌┐┘┤╭╮╰╯]|^\s*(?:-\/\+|~)\s+\w[\w.-]*\s+=\s|^\s*[|^~]{1,}\s*$|^\s*\|\s+[-^~]/,
  // a runner's or bundler's marker: × ❯ ➜ ▲ ●, "=> ", "<<<", PASS/FAIL, "... ok" (✓ → are weak: people tick lists too)
  /^\s*(?:[×✕❯➜▲●⨯]|x\s+[A-Z]|=>\s|>\s+\[|<<<|>>>)|<<<\s*FAILURE|\.\.\.\s+(?:ok|FAILED|ignored)\s*$|^\s*(?:PASS|FAIL|FAILED|ERROR)\s{1,}\S/,
  // a progress bar
  /[█▉▊▋▌▍▎▏#=]{6,}|\d+%\|/,
  // columns: a table's row of three gaps of 2+ spaces, or a tab-led line
  /\S {2,}\S{1,80} {2,}\S{1,80} {2,}\S/,
  /^\t+\S/,
  // a level or a code in a tool's place: "[error]", "error[E0502]", "ERR_PNPM_X", "E   Assert", "31:5   error"
  /\[(?:error|warn|warning|info|debug|notice|crit|alert|emerg)\]|\b(?:error|warning)\[[A-Z]?\d+\]|^\s*E\s{2,}\S|^\s*(?:error|warn|warning|info|debug)\s{2,}/,
  // a process tag: "postfix/smtp[2211]:", "E/AndroidRuntime( 4211):"; three counters in a row: "Tests run: 12, Failures: 2, Errors: 0"
  /\w\[\d+\]:\s|\w\(\s*\d+\):\s|(?:\b[A-Z][\w ]{0,20}:\s*\d+(?:[.,]\d+)?\s*\w{0,3}[,;]\s*){2}[A-Z][\w ]{0,20}:\s*\d/,
  // an error's class heading the line ("Error: ...", "redis.exceptions.TimeoutError: ..."), or its level with the place it
  // happened ("Error in lm.fit(x, y) : ...", "Exception in thread "main" ..."), a request line ("POST https://... 403")
  /^\s*(?:[\w.]{0,80}(?:Error|Exception)|Fatal|FATAL|Uncaught(?: \(in promise\))?(?: \w+)?)\s*:\s|^\s*(?:Error|Warning|Exception)s?\s+in\s+(?:[\w.$:]{1,80}\s*\([^)]{0,80}\)\s*:|thread\s+")|^\s*(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(?:https?:\/\/|\/)\S/,
  // a program naming itself before its level ("clang: error: ...", "psql: error: ..."), a starred banner ("** BUILD FAILED **")
  // (in any case, and after a second label of the program's: "UATHelper: Packaging (Windows): ERROR: Cook failed.")
  /^\s*[\w.+-]{1,40}:\s+(?:[\w.+-]{1,40}(?: \([\w .-]{1,30}\))?:\s+)?(?:error|warning|fatal(?: error)?)\s*:/i,
  /^\s*\*{2,}\s+[A-Z][A-Z ]{2,40}\s+\*{2,}\s*$/,
  // a dot leader between a name and its result: "Test  #7: dsp_resampler_test ........***Failed    0.41 sec"
  /\w\s+\.{5,}\s*\S/,
  // a build target's label then its status in capitals: "//services/payments:unit_test   FAILED in 12.3s"
  /^\s*(?:@[\w.-]*)?\/\/[\w./-]*:[\w.+-]+\s+(?:\(cached\)\s+)?[A-Z]{4,}\b/,
  // a one-letter level, a tick counter in brackets and a tag: "I (3421) wifi: ...", "E (8430) esp-tls: ..."
  /^\s*[A-Z]\s?\(\s*\d+\)\s+[\w./-]+:\s/,
  // a test's verdict with its time in brackets: "Test Case '...' failed (0.012 seconds).", "--- FAIL: TestX (0.00s)"
  /\b(?:passed|failed|FAIL(?:ED)?|PASS(?:ED)?|ok|error)\s*\(\s*\d+(?:\.\d+)?\s*(?:s|ms|secs?|seconds?)\s*\)/,
  // a shell's report of a killed process, an error's code in brackets, a named job's exit: "segmentation fault (core dumped)",
  // "An error occurred (AccessDenied) when calling ...", "Job 'deploy-prod' failed: exit code 137"
  /\((?:core dumped|signal \d+)\)|\b(?:error|exception|failure)(?: occurred)?\s*\(\s*[A-Z][a-z]+(?:[A-Z][a-z0-9]*)+\s*\)|\bfailed:\s+exit (?:code|status) \d+/,
  // an HTTP response pasted: its status line ("HTTP/1.1 503 Service Unavailable", "HTTP 429 Too Many
  // Requests") or a header in its Dashed-Title-Case ("Retry-After: 30", "X-RateLimit-Remaining: 0")
  /^\s*HTTP(?:\/\d(?:\.\d)?)?\s+[1-5]\d\d\s+[A-Z]|^\s*[A-Z][A-Za-z]*(?:-[A-Z][A-Za-z]*)+:\s+\S/,
  // an arrow in front: "---> Running in 3f9a", "--> src/main.rs"
  /^\s*-{2,}>\s/,
  // a shell prompt or a traced command ("$ docker run ...", "+ aws ecs update-service --cluster ...")
  PROMPT,
  /^\s*\+\s+[a-z][\w.-]*\s.*\s--?\w/,
];

/**
 * Tokens of code a person may name in a sentence ("we use java.time.Instant", "the race in
 * worker.go:88"): strong in a line of output, weak in a sentence.
 */
const TOKENS: RegExp[] = [
  // a source position: file.ext:12:3, file.ext(12,3), file.ext:[63,29], worker.go:88 (a host:port is weak, below)
  /\.[a-z][a-z0-9]{0,4}(?::\d+:\d+\b|\(\d+,\d+\)|:\[\d+,\d+\])|\.(?:py|go|rs|java|kt|ts|tsx|js|jsx|mjs|cjs|rb|cs|php|cpp|swift|scala|vue|tf|ex|exs):\d+\b|\s\d+:\d+\s{2,}|\.[a-z][a-z0-9]{0,4}\s\(\d+:\d+\)/,
  // a qualified name: com.acme.api.Order, std::io::Error, Result::unwrap(), (*Worker).handle
  /\b[a-z][a-z0-9_]{0,30}(?:\.[a-z][a-z0-9_]{0,30}){1,8}\.[A-Z][a-z]|\b\w{1,40}::\w{1,40}::\w|\b\w{1,40}::\w{1,40}\(|\(\*\w+\)\.\w+/,
  // a hex address or a long hash
  /\b0x[0-9a-f]{4,}\b|\b(?=[0-9a-f]{0,64}\d)(?=[0-9a-f]{0,64}[a-f])[0-9a-f]{12,64}\b/,
];

/** Shapes a person may type now and then: two of them on one line make it a program's. */
const WEAK: RegExp[] = [
  /(?:^|\s)(?:\/[\w.@-]{1,60}\/[\w.@-]|\.{1,2}\/[\w.@-]{1,60}\/|[A-Z]:\\\w)/, // a path: /srv/app, ./dist/x, C:\Program Files
  /\b[A-Z][a-z]{1,30}(?:[A-Z][a-z]{0,30}){1,6}(?:Error|Exception)\b|\b[A-Z]\w{0,40}(?:Error|Exception):/, // an exception's class
  /\b[A-Z][\w ]{1,20}:\s*\d+(?:[.,]\d+)?\s*\w{0,3}\s*[,;|]\s*[A-Z][\w ]{1,20}:\s*\d/, // "Tests run: 58, Failures: 1", "ActiveRecord: 3.1ms | Allocations: 2211"
  /\w::\w|\b[A-Z]\w{1,60}#[a-z_]\w*/, // a scoped name or a method reference: Admin::OrdersController#index
  /\b(?:exit (?:code|status)|status code|non-zero (?:exit )?(?:code|status)|code=\w+|errno|ENOENT|ECONNREFUSED|ETIMEDOUT|EACCES|SIGSEGV|SIGKILL)\b/i,
  /(?:\b[A-Z]{2,5}\s+~?\d[\d.,]*\s?(?:ms|s|%|kb|mb|gb)?\s*[,;|]\s*){2}[A-Z]{2,5}\s+~?\d/, // a row of metrics: "LCP 7.1 s, TBT 1,240 ms, CLS 0.31"
  /\w\s*\{\s*\w+:\s|\w\(\w+\s*\{/, // a printed struct: Io(Custom { kind: ... })
  /^\s{2,}\S/, // indented
  /^[^a-z]*$/, // no lowercase letter at all
  /[{}[\]<>]{2,}|[(){}[\]]\S{0,40}[(){}[\]]\S{0,40}[(){}[\]]/, // brackets in runs
  /\b(?:[a-z]{1,30}[A-Z]\w{0,40}|[A-Z]\w{0,30}[a-z][A-Z]\w{0,30})\(/, // a call: doThing(
  /\b\d+\.\d+\.\d+\.\d+\b|\b[\w-]{1,40}(?:\.[\w-]{1,40}){1,6}:\d{2,5}\b/, // an address, host:port, file:line
  /\b[A-Z]{2,}(?:_[A-Z0-9]+){2,}\b/, // a constant's or an error code's name: ERR_PNPM_OUTDATED_LOCKFILE
  /"[\w.-]{1,40}"\s*:\s*[^,]{1,80},\s*"[\w.-]{1,40}"\s*:|(?:\b[\w.-]{1,40}=(?:"[^"]{0,120}"|\S{1,120})\s+){2,}\S/, // JSON pairs or key=value runs inside a sentence
  /\S {2,}\S/, // a gap of spaces inside the line
  /^\s*[✓✔✗✘→›]/, // a tick or an arrow in front
  /\s=>\s|\[[\w.@-]{1,60}\]:/,
  /'[^'\s]{2,80}'.{0,120}?'[^'\s]{2,80}'/, // two quoted tokens: 'https://api.acme.io/login' ... 'Access-Control-Allow-Origin'
  /\b[a-z][a-z0-9+.-]{1,15}:\/\/\S/, // a URL: https://, s3://, postgres://
  /\S\s\|\s\S/, // a pipe between fields: "(ActiveRecord: 3.1ms | Allocations: 2211)" // an arrow inside, a bracketed host or task label: "fatal: [web-2]: FAILED! => {"
  /\w==\d|\b\d+\/\d+\s*:|\w\s:\s/, // a pinned version, a step counter, a space before a colon
];

const QUOTED = /`[^`\n]*`/g;
/** Every shape above but a few weak ones needs one of these: a line with none is read in one scan (most prose). */
const ANY_SHAPE = /[\d:/\\{}[\]()|=<>$#~^"\t✓✔✗✘→›×✕❯➜▲●⨯█▉▊▋▌▍▎▏│┃╷╵├└┌┐┘┤╭╮╰╯]|\s\s|^\s|\.\.\.|^x\s|^[^a-z]*$|[A-Z]{2,}_|(?:Error|Exception)\b|\b(?:exit|status) (?:code|status)\b/;
/** Output is known by its head; a longer line is read up to here (and no pattern runs long on a 50,000-character token). */
const HEAD = 400;

/**
 * How much a line looks printed by a program: 2 = it is (one strong shape or two weak ones), 1 = it
 * has one weak shape (output only among other output), 0 = a person's words.
 */
export function machineShape(line: string): 0 | 1 | 2 {
  let own = line.length > HEAD ? line.slice(0, HEAD) : line;
  if (own.includes("`")) own = own.replace(QUOTED, "x");
  if (!own.trim() || !ANY_SHAPE.test(own)) return 0;
  for (const re of STRONG) if (re.test(own)) return 2;
  // weak shapes and code tokens do not outweigh a sentence: one in the first person, or mostly
  // plain words ("We moved the docs to https://docs.acme.io/guide and the old /var/www/docs path is gone.")
  if (FIRST_PERSON.test(own)) return 0;
  let sentence: boolean | undefined;
  const isSentence = () => (sentence ??= plainShare(own) >= 0.7);
  let weak = 0;
  // (a token heading the line is output's layout: "main.c:42:15: error: 'argv' undeclared")
  const lead = own.length - own.trimStart().length;
  const firstWordEnd = own.indexOf(" ", lead) === -1 ? own.length : own.indexOf(" ", lead);
  for (const re of TOKENS) {
    const m = re.exec(own);
    if (!m) continue;
    if (m.index < firstWordEnd || !isSentence()) return 2;
    weak++;
  }
  for (const re of WEAK) if (re.test(own) && ++weak >= 2) return isSentence() ? 1 : 2;
  return weak >= 1 ? 1 : 0;
}

/** (not "us-east-1", "my-app", "our_table": names, not people) */
const FIRST_PERSON = /(?<![-_./])\b(?:we|we're|we've|we'll|i|i'm|i've|our|ours|us|my|let's)\b(?![-_./:])/i;
const PLAIN_WORD = /^[("']?[a-z]{2,}[)"',.;:!?]?$/;

/** The share of a line's words that are plain lowercase words, as in a sentence. */
function plainShare(line: string): number {
  const words = line.trim().split(/\s+/);
  let plain = 0;
  for (const w of words) if (PLAIN_WORD.test(w)) plain++;
  return plain / words.length;
}

/** Whether a line reads as a program's output or code rather than a person's words. */
export function machineMade(line: string): boolean {
  return machineShape(line) === 2;
}
