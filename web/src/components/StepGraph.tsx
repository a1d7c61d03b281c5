/**
 * A workflow's steps drawn as their dependency graph, top to bottom: each step in the row of its
 * depth (the longest chain of dependencies before it), steps of one depth side by side, arrows
 * from each dependency. Most workflows are a chain, so the drawing is narrow and fits a phone; a
 * wide row scales down with the screen.
 */
export interface GraphStep {
  id: string;
  name?: string;
  depends_on?: string[];
}

const W = 180;
const H = 46;
const GAP_X = 16;
const GAP_Y = 34;

/** Cut to `max` characters, so a bold name of a node keeps clear of its border (the full names are listed below the graph). */
function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function StepGraph({ steps }: { steps: GraphStep[] }) {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const depth = new Map<string, number>();
  const depthOf = (id: string, seen: Set<string>): number => {
    if (depth.has(id)) return depth.get(id)!;
    if (seen.has(id)) return 0;
    seen.add(id);
    const deps = (byId.get(id)?.depends_on ?? []).filter((d) => byId.has(d));
    const d = deps.length ? Math.max(...deps.map((x) => depthOf(x, seen) + 1)) : 0;
    depth.set(id, d);
    return d;
  };
  steps.forEach((s) => depthOf(s.id, new Set()));
  const columns: GraphStep[][] = [];
  for (const s of steps) (columns[depth.get(s.id)!] ??= []).push(s);
  const widest = Math.max(...columns.map((c) => c.length));
  const width = widest * (W + GAP_X) - GAP_X;
  const height = columns.length * (H + GAP_Y) - GAP_Y;
  const pos = new Map<string, { x: number; y: number }>();
  columns.forEach((row, depthIndex) => {
    const offset = (width - (row.length * (W + GAP_X) - GAP_X)) / 2;
    row.forEach((s, i) => pos.set(s.id, { x: offset + i * (W + GAP_X), y: depthIndex * (H + GAP_Y) }));
  });

  return (
    <figure className="graph">
      <svg viewBox={`-4 -4 ${width + 8} ${height + 8}`} width={width + 8} role="img" aria-labelledby="graph-title">
        <title id="graph-title">Steps and their dependencies</title>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" fill="#4b5563" />
          </marker>
        </defs>
        {steps.flatMap((s) =>
          (s.depends_on ?? [])
            .filter((d) => pos.has(d))
            .map((d) => {
              const a = pos.get(d)!;
              const b = pos.get(s.id)!;
              return (
                <path
                  key={`${d}-${s.id}`}
                  d={`M ${a.x + W / 2} ${a.y + H} C ${a.x + W / 2} ${a.y + H + GAP_Y / 2}, ${b.x + W / 2} ${b.y - GAP_Y / 2}, ${b.x + W / 2} ${b.y - 2}`}
                  fill="none"
                  stroke="#4b5563"
                  strokeWidth="1.5"
                  markerEnd="url(#arrow)"
                />
              );
            }),
        )}
        {steps.map((s) => {
          const p = pos.get(s.id)!;
          return (
            <g key={s.id} transform={`translate(${p.x},${p.y})`}>
              <rect width={W} height={H} rx="8" fill="#eef2ff" stroke="#1d4ed8" />
              <text x={W / 2} y={19} textAnchor="middle" fontSize="12" fontWeight="600" fill="#1b1f24">
                {clip(s.name ?? s.id, 22)}
              </text>
              <text x={W / 2} y={36} textAnchor="middle" fontSize="11" fill="#374151">
                {clip(s.id, 25)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>
        <ol className="sr-only">
          {steps.map((s) => (
            <li key={s.id}>
              {s.name ?? s.id}
              {s.depends_on?.length ? `, after ${s.depends_on.join(', ')}` : ', first'}
            </li>
          ))}
        </ol>
      </figcaption>
    </figure>
  );
}
