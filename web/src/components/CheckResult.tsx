import type { CheckSeverity, CheckStatus } from '../gql/graphql';

interface Check {
  status: CheckStatus;
  summary: string;
  findings?: { rule: string; severity: CheckSeverity; field: string; excerpt: string; message: string }[];
}

/**
 * The publishing check's result as a subscriber reads it: the one-line summary ("checked: no
 * findings", "checked: 2 warnings") and, where given, each finding with where it is and the text
 * found (rendered as text: the excerpt is the author's words, with hidden characters named).
 */
export function CheckResult({ check, label }: { check: Check; label?: string }) {
  return (
    <div className={`check check-${check.status}`} aria-label={label ?? 'Publishing check'}>
      <p className="hint">{check.summary}</p>
      {check.findings && check.findings.length > 0 && (
        <ul className="check-findings">
          {check.findings.map((f, i) => (
            <li key={i}>
              <strong>{f.severity === 'block' ? 'Blocked' : 'Warning'}</strong> in <code>{f.field}</code>: {f.message}
              <br />
              <code className="check-excerpt">{f.excerpt}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
