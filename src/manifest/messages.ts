/**
 * Wording helpers shared by the schema and semantic checks, so every error names its
 * place the same way ("steps[2].depends_on[0] (step 'test')") and suggests the same way.
 */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapePointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function pointer(...segments: Array<string | number>): string {
  return segments.map((s) => '/' + escapePointerSegment(String(s))).join('');
}

export function pointerSegments(path: string): string[] {
  if (path === '') return [];
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Orders pointers segment by segment, array indices numerically, so steps[10] follows steps[9]. */
export function comparePointers(a: string, b: string): number {
  const as = pointerSegments(a);
  const bs = pointerSegments(b);
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const x = as[i]!;
    const y = bs[i]!;
    if (x === y) continue;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) return Number(x) - Number(y);
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return as.length - bs.length;
}

/**
 * A pointer as a person writes it: `steps[2].retry.max_attempts`. Whether a segment is
 * an index is read from the input itself, so a key "0" of an object stays a key.
 */
export function where(path: string, input: unknown): string {
  const segments = pointerSegments(path);
  if (segments.length === 0) return 'the manifest';
  let out = '';
  let node: unknown = input;
  for (const seg of segments) {
    if (Array.isArray(node)) {
      out += `[${seg}]`;
      node = node[Number(seg)];
    } else {
      const plain = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(seg);
      out += plain ? (out === '' ? seg : `.${seg}`) : `[${JSON.stringify(seg)}]`;
      node = isRecord(node) ? node[seg] : undefined;
    }
  }
  return out;
}

/** " (step 'build')" when the path lies inside a step whose id can be read, else ''. */
function stepNote(path: string, input: unknown): string {
  const [first, index] = pointerSegments(path);
  if (first !== 'steps' || index === undefined || !isRecord(input) || !Array.isArray(input.steps)) return '';
  const step: unknown = input.steps[Number(index)];
  if (!isRecord(step) || typeof step.id !== 'string' || step.id === '') return '';
  return ` (step '${step.id}')`;
}

/** `where` plus the step note, except when the path is the step id itself (it would repeat). */
export function place(path: string, input: unknown): string {
  const segs = pointerSegments(path);
  const isIdItself = segs.length === 3 && segs[0] === 'steps' && segs[2] === 'id';
  return where(path, input) + (isIdItself ? '' : stepNote(path, input));
}

export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return `the string ${JSON.stringify(value)}`;
    case 'number':
      return `the number ${value}`;
    case 'boolean':
      return `the boolean ${value}`;
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

export function quoteList(values: readonly unknown[]): string {
  return values.map((v) => `'${String(v)}'`).join(', ');
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The candidate closest to `value`, when it is close enough to be a likely typo;
 * hyphens and case are normalised first because `depends-on` and `Code_Agent` are the usual slips.
 */
function closest(value: string, candidates: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[-\s]/g, '_');
  const target = norm(value);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(target, norm(c));
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  const tolerance = Math.max(2, Math.floor(target.length / 3));
  return bestDistance <= tolerance ? best : undefined;
}

export function suggestion(value: string, candidates: readonly string[]): string {
  const near = closest(value, candidates);
  return near === undefined ? '' : ` (did you mean '${near}'?)`;
}
