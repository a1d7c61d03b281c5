import { AppError } from '../errors.js';
import { HIDDEN_CHARACTERS, LINE_BREAKS } from '../text.js';

/**
 * The publishing check: the rules run over everything an agent sees of a workflow version (name,
 * description, category, tags and every string of the manifest, keys included). Pure: no database,
 * no clock, so the same content always gets the same findings (docs/marketplace.md, "The
 * publishing check", which also states the false-positive policy these rules follow).
 *
 * - `block`: the text does something by itself in a client or hides from the reviewer (an execution
 *   syntax, hidden characters), or it tells the agent to read a secret or to send data away.
 *   Publishing is refused.
 * - `warn`: the text touches a sensitive subject without asking for the harm (a mention of `~/.ssh`,
 *   a webhook URL, a long encoded run). Published, and shown to subscribers.
 */

export type CheckSeverity = 'block' | 'warn';

export type CheckRule =
  'client-execution' | 'client-file-reference' | 'hidden-characters' | 'secret-read' | 'send-to-url' | 'download-and-run' | 'encoded-blob';

export interface CheckFinding {
  rule: CheckRule;
  severity: CheckSeverity;
  /** Where: `name`, `description`, `category`, `tags[1]`, `manifest.steps[0].parameters.command`… */
  field: string;
  /** The offending text with a little context, hidden characters shown as `<U+202E>`, line breaks as `⏎`. */
  excerpt: string;
  message: string;
}

/** `unchecked`: content recorded before the check existed, until its next write checks it. */
type CheckStatus = 'passed' | 'warnings' | 'blocked' | 'unchecked';

export interface CheckResult {
  status: CheckStatus;
  findings: CheckFinding[];
}

/** What the check reads: the agent-visible content of one version. */
export interface CheckedContent {
  name: string;
  description?: string | null;
  category?: string | null;
  tags?: readonly string[] | null;
  manifest: unknown;
}

/** At most this many findings are kept: enough to fix a workflow, bounded for storage and answers. */
export const MAX_FINDINGS = 50;
const EXCERPT_CONTEXT = 24;
const EXCERPT_MAX = 120;

/** Every string an agent may see, with where it sits. Object keys count too: they reach renderings. */
function textsOf(content: CheckedContent): { field: string; text: string }[] {
  const out: { field: string; text: string }[] = [{ field: 'name', text: content.name }];
  if (content.description) out.push({ field: 'description', text: content.description });
  if (content.category) out.push({ field: 'category', text: content.category });
  (content.tags ?? []).forEach((tag, i) => out.push({ field: `tags[${i}]`, text: tag }));
  const walk = (value: unknown, path: string, depth: number) => {
    if (depth > 64) return;
    if (typeof value === 'string') out.push({ field: path, text: value });
    else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`, depth + 1));
    else if (value && typeof value === 'object') {
      for (const [key, v] of Object.entries(value)) {
        const at = /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
        out.push({ field: at, text: key });
        walk(v, at, depth + 1);
      }
    }
  };
  walk(content.manifest, 'manifest', 0);
  return out;
}

/** A stretch of text a person can read in a list: hidden characters named, line breaks shown. */
function visibleExcerpt(text: string, start: number, end: number): string {
  const from = Math.max(0, start - EXCERPT_CONTEXT);
  const to = Math.min(text.length, end + EXCERPT_CONTEXT);
  let excerpt = text.slice(from, to);
  excerpt = excerpt
    .replace(LINE_BREAKS, '⏎')
    .replace(HIDDEN_CHARACTERS, (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`);
  if ([...excerpt].length > EXCERPT_MAX) excerpt = `${[...excerpt].slice(0, EXCERPT_MAX).join('')}…`;
  return `${from > 0 ? '…' : ''}${excerpt}${to < text.length && !excerpt.endsWith('…') ? '…' : ''}`;
}

interface Hit {
  rule: CheckRule;
  severity: CheckSeverity;
  start: number;
  end: number;
  message: string;
}

type Rule = (text: string) => Hit[];

/** A hit on the whole of a match. */
function hitAt(m: RegExpExecArray, rule: CheckRule, severity: CheckSeverity, message: string): Hit {
  return { rule, severity, start: m.index, end: m.index + m[0].length, message };
}

function matchesOf(pattern: RegExp, text: string): RegExpExecArray[] {
  const re = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  return [...text.matchAll(re)];
}

// ---- Client execution and preprocessing syntaxes --------------------------------------------

/**
 * Syntaxes a client acts on before the model reads the text (docs/marketplace.md cites each
 * client's documentation): Claude Code runs `` !`command` `` and ```` ```! ```` blocks in skills and
 * commands; Gemini CLI runs `!{command}` and inlines `@{path}` in custom commands.
 */
const EXECUTION_SYNTAXES: { pattern: RegExp; message: string }[] = [
  { pattern: /!`[^`]*`/, message: 'Claude Code runs !`…` as a shell command before the model reads the text' },
  {
    pattern: /(?:^|[\n\r])[ \t]*(?:`{3,}|~{3,})[ \t]*!/,
    message: 'Claude Code runs a ```! block as shell commands before the model reads the text',
  },
  { pattern: /!\{[^}]*\}?/, message: 'Gemini CLI runs !{…} as a shell command when it expands a custom command' },
  { pattern: /@\{[^}]*\}?/, message: "Gemini CLI inlines @{…}, a file's or folder's content, when it expands a custom command" },
];

/**
 * File references other clients expand into the prompt: Claude Code's `@path` in commands and
 * memory files, VS Code prompt files' `#file:path`. They read, they do not run: a warning, unless
 * the path is a secret (then the secret rule blocks it).
 */
const FILE_REFERENCES = /(?<![\w@/.])@(?:~|\.{1,2})?\/[^\s`'")]+|(?<![\w@])@\.[\w.-]+|#file:[^\s`'")]+/;

const clientSyntaxes: Rule = (text) => {
  const hits: Hit[] = [];
  for (const { pattern, message } of EXECUTION_SYNTAXES) {
    for (const m of matchesOf(pattern, text)) {
      const lead = /^[\n\r]/.test(m[0]) ? 1 : 0;
      hits.push({ rule: 'client-execution', severity: 'block', start: m.index + lead, end: m.index + m[0].length, message });
    }
  }
  for (const m of matchesOf(FILE_REFERENCES, text)) {
    hits.push(
      hitAt(
        m,
        'client-file-reference',
        'warn',
        `some clients replace ${m[0].startsWith('#') ? '#file:' : '@'}… with the file's content before the model reads the text`,
      ),
    );
  }
  return hits;
};

// ---- Hidden characters -------------------------------------------------------------------------

const PICTOGRAPH = /\p{Extended_Pictographic}/u;
// Scripts whose spelling uses the zero-width non-joiner (Persian, the Indic scripts…).
const JOINING_SCRIPT =
  /[\p{Script=Arabic}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Malayalam}\p{Script=Kannada}\p{Script=Telugu}\p{Script=Tamil}\p{Script=Gujarati}\p{Script=Gurmukhi}\p{Script=Oriya}\p{Script=Sinhala}]/u;

/** Whether a hidden character at `i` is ordinary writing: a joiner in an emoji or in a script that spells with it. */
function isOrdinaryJoiner(text: string, i: number, c: string): boolean {
  const before = [...text.slice(Math.max(0, i - 2), i)].pop() ?? '';
  const after = [...text.slice(i + c.length, i + c.length + 2)][0] ?? '';
  if (c === '\u200D') return PICTOGRAPH.test(before) || (before === '\uFE0F' && PICTOGRAPH.test(text.slice(Math.max(0, i - 3), i)));
  if (c === '\u200C') return JOINING_SCRIPT.test(before) && JOINING_SCRIPT.test(after);
  return false;
}

const hiddenCharacters: Rule = (text) => {
  const hits: Hit[] = [];
  for (const m of matchesOf(HIDDEN_CHARACTERS, text)) {
    const c = m[0];
    if (isOrdinaryJoiner(text, m.index, c)) continue;
    const code = c.codePointAt(0)!;
    const name = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
    // Left-to-right / right-to-left marks steer mixed-direction text without hiding any: a warning.
    const mark = code === 0x200e || code === 0x200f || code === 0x061c;
    const message = mark
      ? `a direction mark (${name}) changes how the text around it reads`
      : code >= 0xe0000
        ? `a Unicode tag character (${name}) carries text a reviewer cannot see`
        : `an invisible or reordering character (${name}) hides or rearranges text from a reviewer`;
    hits.push(hitAt(m, 'hidden-characters', mark ? 'warn' : 'block', message));
  }
  return hits;
};

// ---- Secrets -------------------------------------------------------------------------------

const SECRET_NAME = '[A-Z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|PRIVATE_KEY|ACCESS_KEY|CREDENTIALS?|AUTH)[A-Z0-9_]*';

/** Places where secrets live: dotfiles, key files, credential stores. */
const SECRET_FILES = new RegExp(
  [
    String.raw`(?<![\w-])\.env(?:\.(?!example\b|sample\b|template\b|dist\b)[\w-]+)?(?![\w-]|\.(?:example|sample|template|dist)\b)`,
    String.raw`~?/?\.aws(?:/(?:credentials|config))?\b`,
    String.raw`~?/?\.ssh\b(?:/[\w.-]+)?`,
    String.raw`~?/?\.(?:bash|zsh|python|node_repl|psql|mysql)_history\b`,
    String.raw`~?/?\.(?:azure|config/gcloud)\b`,
    String.raw`\bid_(?:rsa|dsa|ecdsa|ed25519)\b`,
    String.raw`~?/?\.(?:npmrc|netrc|pgpass|git-credentials|pypirc)\b`,
    String.raw`~?/?\.docker/config\.json`,
    String.raw`~?/?\.kube/config\b`,
    String.raw`~?/?\.config/gh/hosts\.yml`,
    String.raw`\bcredentials\.json\b`,
    String.raw`/etc/(?:passwd|shadow)\b`,
    String.raw`\b(?:keychain|keyring)\b`,
  ].join('|'),
  'i',
);

/** Reading the environment: expanding a secret-looking variable, or dumping all of them. */
const ENV_EXPANSION = new RegExp(
  [
    String.raw`\$\{?${SECRET_NAME}\}?`,
    String.raw`%${SECRET_NAME}%`,
    String.raw`\bprocess\.env(?:\.${SECRET_NAME}|\[['"]${SECRET_NAME}['"]\])`,
    String.raw`\bos\.(?:environ(?:\.get\(|\[)|getenv\()['"]${SECRET_NAME}['"]`,
  ].join('|'),
);
const ENV_DUMP =
  /\bprintenv\b|(?:^|[;&|`(]\s*|\$\(\s*)env\s*(?:[|>;`)]|$)|\bexport\s+-p\b|\bprocess\.env\b(?![.[])|\bos\.environ\b(?![.[])|\bget-childitem\s+env:/im;

/** Verbs that read, show or carry something away. */
const READ_VERB =
  /\b(?:cat|read|reads|reading|open|print|prints|printing|echo|head|tail|show|display|output|dump|copy|paste|include|grep|send|upload|post|base64|exfiltrate|collect|list|leak|reveal|share|attach|encode)\b/i;
/** A negation just before the verb: "never print", "do not read", "don't cat". */
const NEGATED_VERB =
  /\b(?:never|not|don't|dont|no need to|avoid|without)\s+(?!forget|fail|hesitate|skip)(?:\w+\s+){0,2}(?:cat|read|open|print|echo|type|show|display|output|dump|copy|paste|include|load|source|send|upload|post|share|leak|reveal|expose|commit)\b/i;
/** Words of a review or a guard: the sentence is about keeping the secret safe. */
const GUARD =
  /\b(?:no|not|never|don't|nothing|committed|commit|gitignore|gitignored|ignored|excluded|leak|leaked|leaks|exposed|hard-?coded|checked in|tracked|is present|are present|rotate)\b/i;

/** The sentence around `[start, end)`: between line breaks and sentence ends. */
function sentenceAround(text: string, start: number, end: number): string {
  const before = text.slice(0, start);
  const from = Math.max(before.search(/[^\n\r.!?;]*$/), 0);
  const rest = text.slice(end);
  const stop = rest.search(/[\n\r]|[.!?;](?:\s|$)/);
  return text.slice(from, stop === -1 ? text.length : end + stop);
}

const secrets: Rule = (text) => {
  const hits: Hit[] = [];
  for (const m of matchesOf(ENV_DUMP, text)) {
    hits.push(hitAt(m, 'secret-read', 'block', 'reads every environment variable, where tokens and keys live'));
  }
  const targets = [
    ...matchesOf(SECRET_FILES, text).map((m) => ({ m, what: 'a file that holds secrets' })),
    ...matchesOf(ENV_EXPANSION, text).map((m) => ({ m, what: 'a secret environment variable' })),
  ];
  for (const { m, what } of targets) {
    const sentence = sentenceAround(text, m.index, m.index + m[0].length);
    const reads = READ_VERB.test(sentence) || /\$\(|`[^`]*\b(?:cat|type|less|head)\b/.test(sentence);
    const negated = NEGATED_VERB.test(sentence);
    const guarded = GUARD.test(sentence);
    if (reads && !negated) {
      hits.push(hitAt(m, 'secret-read', 'block', `asks the agent to read or pass on ${what} (${m[0]})`));
    } else if (!guarded || reads) {
      hits.push(hitAt(m, 'secret-read', 'warn', `mentions ${what} (${m[0]}); subscribers should know this workflow goes near it`));
    }
  }
  return hits;
};

// ---- Sending data to a URL ---------------------------------------------------------------------

const URL = /\bhttps?:\/\/[^\s`'")<>]+/i;
const CURL_WITH_DATA = /\bcurl\b[^\n\r|;&]*?(?:\s(?:-d|--data(?:-\w+)?|-F|--form|-T|--upload-file|--json|-X\s*(?:POST|PUT|PATCH))\b)/i;
const WGET_WITH_DATA = /\bwget\b[^\n\r|;&]*?--(?:post|body)-(?:data|file)\b/i;
const FETCH_WITH_BODY =
  /\b(?:fetch|axios(?:\.post|\.put)?|requests\.(?:post|put)|http\.post|XMLHttpRequest)\b[^\n\r]*?\b(?:body|data|json|method\s*:\s*['"](?:POST|PUT|PATCH))\b/i;
const SEND_WORDS =
  /\b(?:post|posts|posting|send|sends|sending|upload|uploads|uploading|submit|submits|transmit|exfiltrate|forward|forwards|report|beacon|deliver)\b[^\n\r]{0,120}?\b(?:to|at|into|via)\s+<?https?:\/\//i;
/** What is being sent is the subscriber's: file contents, command output, the environment, keys. */
const SENSITIVE_PAYLOAD =
  /(?:^|[\s='"])@[~./\w-]*[/.][\w./-]+|\$\(|\b(?:contents?|output|environment|env|credentials?|secrets?|tokens?|keys?|passwords?|shell history|cookies?|source code)\b/i;

const sendToUrl: Rule = (text) => {
  const hits: Hit[] = [];
  const seen = new Set<number>();
  const add = (start: number, end: number, sentence: string, how: string) => {
    if (seen.has(start)) return;
    seen.add(start);
    const sensitive = SENSITIVE_PAYLOAD.test(sentence) || SECRET_FILES.test(sentence) || ENV_EXPANSION.test(sentence);
    hits.push({
      rule: 'send-to-url',
      severity: sensitive ? 'block' : 'warn',
      start,
      end,
      message: sensitive
        ? `${how} the subscriber's files, output or secrets to an address the author chose`
        : `${how} data to an address the author chose`,
    });
  };
  for (const pattern of [CURL_WITH_DATA, WGET_WITH_DATA, FETCH_WITH_BODY, SEND_WORDS]) {
    for (const m of matchesOf(pattern, text)) {
      const sentence = sentenceAround(text, m.index, m.index + m[0].length);
      // A command or call with a body counts when the sentence names a URL (its target).
      if (pattern !== SEND_WORDS && !URL.test(sentence)) continue;
      add(m.index, m.index + m[0].length, sentence, pattern === SEND_WORDS ? 'tells the agent to send' : 'sends');
    }
  }
  // An address built from a secret, the user's identity or a command's output sends it by being fetched.
  const fromVariable = new RegExp(
    String.raw`\bhttps?://[^\s\`'"<>]*?\$(?:\(|\{?(?:${SECRET_NAME}|USER|HOME|PWD|HOSTNAME|LOGNAME)\b)[^\s\`'"<>]*`,
  );
  for (const m of matchesOf(fromVariable, text)) {
    if (seen.has(m.index)) continue;
    seen.add(m.index);
    hits.push(
      hitAt(
        m,
        'send-to-url',
        'block',
        "builds an address from a variable or a command's output: fetching it sends that value to the author's server",
      ),
    );
  }
  for (const m of matchesOf(
    /\b(?:curl|wget|iwr|Invoke-WebRequest)\b[^\n\r|]*\|\s*(?:sudo\s+)?(?:ba|z|k)?sh\b|\b(?:ba)?sh\s+<\(\s*curl\b/i,
    text,
  )) {
    hits.push(
      hitAt(
        m,
        'download-and-run',
        'block',
        'downloads a script and runs it: what runs is whatever that address serves, never what was reviewed',
      ),
    );
  }
  return hits;
};

// ---- Encoded blobs -------------------------------------------------------------------------------

const BASE64_RUN = /[A-Za-z0-9+/_-]{100,}={0,2}/;
const HEX_RUN = /(?:0x)?[0-9a-fA-F]{100,}/;

function decodedText(run: string, hex: boolean): string | null {
  try {
    const bytes = hex ? Buffer.from(run.replace(/^0x/, ''), 'hex') : Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    const text = bytes.toString('utf8');
    // Mostly printable: something written to be read once decoded.
    const printable = text.replace(/[^\x20-\x7e\n\r\t]/g, '').length;
    return printable >= text.length * 0.9 ? text : null;
  } catch {
    return null;
  }
}

const encodedBlobs: Rule = (text) => {
  const hits: Hit[] = [];
  for (const [pattern, hex] of [
    [HEX_RUN, true],
    [BASE64_RUN, false],
  ] as const) {
    for (const m of matchesOf(pattern, text)) {
      const run = m[0];
      // A base64 run mixes cases and digits; a long word, path or hex run does not.
      if (!hex && !(/[a-z]/.test(run) && /[A-Z]/.test(run) && /\d/.test(run))) continue;
      if (!hex && /^(?:0x)?[0-9a-fA-F]+$/.test(run)) continue;
      const decoded = decodedText(run, hex);
      const inner = decoded ? RULES_ON_PLAIN_TEXT.flatMap((rule) => rule(decoded)).some((h) => h.severity === 'block') : false;
      const what = `a ${hex ? 'hex' : 'base64'} run of ${run.length} characters`;
      hits.push(
        hitAt(
          m,
          'encoded-blob',
          inner ? 'block' : 'warn',
          inner ? `${what} that decodes to text this check blocks` : `${what}: a reviewer cannot read what it says`,
        ),
      );
    }
  }
  return hits;
};

const RULES_ON_PLAIN_TEXT: Rule[] = [clientSyntaxes, hiddenCharacters, secrets, sendToUrl];
const RULES: Rule[] = [...RULES_ON_PLAIN_TEXT, encodedBlobs];

/** The findings of the rules on a workflow version's content, blocking ones first. */
export function checkContent(content: CheckedContent): CheckResult {
  const findings: CheckFinding[] = [];
  for (const { field, text } of textsOf(content)) {
    for (const rule of RULES) {
      for (const hit of rule(text)) {
        findings.push({
          rule: hit.rule,
          severity: hit.severity,
          field,
          excerpt: visibleExcerpt(text, hit.start, hit.end),
          message: hit.message,
        });
      }
    }
  }
  findings.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'block' ? -1 : 1));
  return resultOf(findings.slice(0, MAX_FINDINGS));
}

/** The result a list of (stored) findings stands for. */
function resultOf(findings: CheckFinding[]): CheckResult {
  const status: CheckStatus = findings.some((f) => f.severity === 'block') ? 'blocked' : findings.length ? 'warnings' : 'passed';
  return { status, findings };
}

/** What a check_findings column holds: its findings, or `unchecked` for rows recorded before the check (null there). */
export function storedCheck(findings: unknown): CheckResult {
  return Array.isArray(findings) ? resultOf(findings as CheckFinding[]) : { status: 'unchecked', findings: [] };
}

/** One line a listing shows: "checked: no findings", "checked: 2 warnings"… */
export function checkSummary(result: CheckResult | null): string {
  if (!result || result.status === 'unchecked') return 'not checked yet';
  if (result.status === 'passed') return 'checked: no findings';
  const blocks = result.findings.filter((f) => f.severity === 'block').length;
  const warns = result.findings.length - blocks;
  const parts = [
    ...(blocks ? [`${blocks} blocking finding${blocks === 1 ? '' : 's'}`] : []),
    ...(warns ? [`${warns} warning${warns === 1 ? '' : 's'}`] : []),
  ];
  return `checked: ${parts.join(', ')}`;
}

/**
 * The answer when a workflow may not be public with this content: a VALIDATION_ERROR whose
 * `details.fields` names each blocking finding's field and whose `details.findings` holds them all
 * (warnings included), so the author fixes everything in one go.
 */
export function publishingRefused(result: CheckResult) {
  const blocking = result.findings.filter((f) => f.severity === 'block');
  const problems = blocking.map((f) => ({ field: f.field, message: `${f.field}: ${f.message}` }));
  const count = blocking.length === 1 ? 'one finding' : `${blocking.length} findings`;
  const message = `this workflow cannot be public: the publishing check blocks ${count} (${problems.map((p) => p.message).join('; ')})`;
  return new AppError('VALIDATION_ERROR', message, { fields: problems, findings: result.findings });
}
