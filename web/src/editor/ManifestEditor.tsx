import { autocompletion, closeBrackets, type Completion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { yaml } from '@codemirror/lang-yaml';
import { bracketMatching, HighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { Compartment, EditorState, type Text } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { useEffect, useRef } from 'react';
import { parseDocument, isNode } from 'yaml';
import schema from '../../../src/manifest/workflow-manifest.v1.0.schema.json';
import { validateManifestText, type Problem } from './validate';

/**
 * The manifest editor (its own chunk, loaded with the workflow page): CodeMirror 6 in YAML or JSON
 * mode (by the text's first character), the service's checks run in the page as you type, each
 * problem marked at its place, and completion of keys, actions and step ids from the manifest's
 * JSON Schema and the text itself.
 */

interface SchemaProperty {
  description?: string;
  enum?: string[];
}
const TOP_KEYS = schema.properties as Record<string, SchemaProperty>;
const STEP_KEYS = schema.definitions.step.properties as Record<string, SchemaProperty>;
const ACTIONS: string[] = (schema.definitions.step.properties.action as SchemaProperty).enum ?? [];

function isJson(text: string): boolean {
  return /^\s*[{[]/.test(text);
}

/** Where a validator path points in the text: the node at that path, or the nearest parent that exists. */
function rangeOf(text: string, doc: Text, problem: Problem): { from: number; to: number } {
  if (problem.line) {
    const line = doc.line(Math.min(Math.max(problem.line, 1), doc.lines));
    const from = Math.min(line.from + Math.max((problem.column ?? 1) - 1, 0), line.to);
    return { from, to: Math.max(from, line.to) };
  }
  const segments =
    problem.path === ''
      ? []
      : problem.path
          .slice(1)
          .split('/')
          .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const parsed = parseDocument(text, { keepSourceTokens: false });
  for (let n = segments.length; n >= 0; n--) {
    const path = segments.slice(0, n).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    const node = n === 0 ? parsed.contents : parsed.getIn(path, true);
    if (isNode(node) && node.range) {
      const [from, to] = node.range;
      // A whole map or list: its first line is enough to point at it.
      const end = Math.min(to, doc.lineAt(from).to);
      return { from, to: Math.max(from + 1, end) > doc.length ? doc.length : Math.max(from + 1, end) };
    }
  }
  return { from: 0, to: Math.min(doc.length, doc.line(1).to) };
}

function diagnosticsOf(text: string, doc: Text, problems: Problem[]): Diagnostic[] {
  return problems.map((p) => ({ ...rangeOf(text, doc, p), severity: 'error', message: p.path ? `${p.path}: ${p.message}` : p.message }));
}

function stepIds(text: string): string[] {
  const ids = new Set<string>();
  for (const m of text.matchAll(/(?:^|[\s{,-])"?id"?\s*:\s*"?([a-z][a-z0-9_]*)/gm)) ids.add(m[1]!);
  return [...ids];
}

function options(names: string[], type: string, info?: (name: string) => string | undefined): Completion[] {
  return names.map((label) => ({ label, type, info: info?.(label) }));
}

/** Is the line at `lineNo` inside a YAML `depends_on:` block list? */
function inDependsOnList(doc: Text, lineNo: number): boolean {
  for (let n = lineNo - 1; n >= 1; n--) {
    const text = doc.line(n).text;
    if (/^\s*-\s/.test(text) && !/:\s/.test(text)) continue;
    return /depends_on:\s*$/.test(text);
  }
  return false;
}

/** Is the line inside the `steps:` list (the nearest top-level key above it is `steps`)? */
function inSteps(doc: Text, lineNo: number): boolean {
  for (let n = lineNo - 1; n >= 1; n--) {
    const text = doc.line(n).text;
    if (/^[A-Za-z_$"]/.test(text)) return /^"?steps"?\s*:/.test(text);
  }
  return false;
}

function complete(context: CompletionContext): CompletionResult | null {
  const { state, pos } = context;
  const line = state.doc.lineAt(pos);
  const before = line.text.slice(0, pos - line.from);
  const word = context.matchBefore(/[\w$]*/);
  const from = word ? word.from : pos;

  if (/"?action"?\s*:\s*"?[\w]*$/.test(before)) return { from, options: options(ACTIONS, 'enum'), validFor: /^\w*$/ };
  const ids = () => options(stepIds(state.doc.toString()), 'variable');
  if (/"?depends_on"?\s*:\s*\[[^\]]*$/.test(before)) return { from, options: ids(), validFor: /^\w*$/ };
  if (/^\s*-\s*"?\w*$/.test(before) && inDependsOnList(state.doc, line.number)) return { from, options: ids(), validFor: /^\w*$/ };

  // A key at the start of a line (YAML) or after an opening quote (JSON).
  const key = /^(\s*)(-\s+)?"?([\w$]*)$/.exec(before);
  if (key) {
    const top = key[1]!.length === 0 && !key[2];
    const keys = top ? TOP_KEYS : inSteps(state.doc, line.number + (key[2] ? 1 : 0)) ? STEP_KEYS : null;
    if (!keys) return null;
    if (!context.explicit && !word?.text && !key[2]) return null;
    const quoted = before.trimEnd().endsWith('"') || /"\w*$/.test(before);
    return {
      from,
      options: Object.entries(keys).map(([label, p]) => ({
        label,
        type: 'property',
        info: p.description,
        apply: quoted ? label : `${label}: `,
      })),
      validFor: /^[\w$]*$/,
    };
  }
  return null;
}

// Darker than CodeMirror's default colours: every token keeps 4.5:1 contrast on white.
const highlight = HighlightStyle.define([
  { tag: [tags.propertyName, tags.definition(tags.propertyName)], color: '#1e3a8a' },
  { tag: [tags.string, tags.special(tags.string)], color: '#166534' },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: '#92400e' },
  { tag: tags.comment, color: '#4b5563', fontStyle: 'italic' },
  { tag: [tags.keyword, tags.meta, tags.punctuation, tags.separator], color: '#374151' },
]);

const theme = EditorView.theme({
  '&': { border: '1px solid var(--line)', borderRadius: '6px', background: '#fff', fontSize: '0.9rem' },
  '&.cm-focused': { outline: '3px solid var(--accent)', outlineOffset: '2px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', minHeight: '18rem', maxHeight: '70vh' },
  '.cm-gutters': { background: '#f6f7f9', color: '#4b5563', borderRight: '1px solid var(--line)' },
  '.cm-activeLine': { background: '#f1f5ff' },
  '.cm-tooltip-autocomplete ul li[aria-selected]': { background: '#1d4ed8', color: '#fff' },
});

export interface ManifestEditorProps {
  value: string;
  onChange: (text: string) => void;
  /** The problems the service's checks find, after each change. */
  onProblems: (problems: Problem[]) => void;
  labelledBy: string;
  describedBy: string;
}

export default function ManifestEditor({ value, onChange, onProblems, labelledBy, describedBy }: ManifestEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const callbacks = useRef({ onChange, onProblems });
  callbacks.current = { onChange, onProblems };

  useEffect(() => {
    const language = new Compartment();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let jsonMode = isJson(value);
    const check = (v: EditorView) => {
      const text = v.state.doc.toString();
      const problems = validateManifestText(text);
      v.dispatch(setDiagnostics(v.state, diagnosticsOf(text, v.state.doc, problems)));
      callbacks.current.onProblems(problems);
    };
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          history(),
          drawSelection(),
          indentOnInput(),
          bracketMatching(),
          closeBrackets(),
          highlightActiveLine(),
          syntaxHighlighting(highlight),
          language.of(jsonMode ? json() : yaml()),
          autocompletion({ override: [complete] }),
          lintGutter(),
          keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
          theme,
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-labelledby': labelledBy, 'aria-describedby': describedBy, spellcheck: 'false' }),
          EditorView.updateListener.of((update) => {
            if (!update.docChanged) return;
            const text = update.state.doc.toString();
            if (isJson(text) !== jsonMode) {
              jsonMode = !jsonMode;
              update.view.dispatch({ effects: language.reconfigure(jsonMode ? json() : yaml()) });
            }
            callbacks.current.onChange(text);
            clearTimeout(timer);
            timer = setTimeout(() => check(update.view), 250);
          }),
        ],
      }),
    });
    view.current = editor;
    check(editor);
    return () => {
      clearTimeout(timer);
      editor.destroy();
      view.current = null;
    };
    // The editor is made once; later values come in through the effect below.
  }, []);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  return <div ref={host} className="manifest-editor" />;
}
