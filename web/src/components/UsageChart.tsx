import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ADAPTER_DEFINITIONS } from '../../../src/manifest/adapter-list';

/** Connections per day, and a second chart per adapter, with a table beside for screen readers. */
export function UsageChart({
  byDay,
  byAdapter,
}: {
  byDay: { date: string; count: number }[];
  byAdapter: readonly { adapter: string; count: number }[];
}) {
  // Named by the clients each adapter is written for, as elsewhere on the pages (the internal name when it is not one the dashboard knows).
  const adapters = byAdapter.map((a) => {
    const clients: string | undefined = (ADAPTER_DEFINITIONS as Record<string, { clients: string }>)[a.adapter]?.clients;
    return { ...a, adapter: clients ? `${clients.charAt(0).toUpperCase()}${clients.slice(1)}` : a.adapter };
  });
  return (
    <div className="charts">
      <figure>
        <figcaption>Connections per day</figcaption>
        <div className="chart" aria-hidden="true">
          <ResponsiveContainer width="100%" height={220}>
            <BarChart accessibilityLayer={false} data={byDay} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="date" tickFormatter={(d: string) => d.slice(5)} fontSize={12} />
              <YAxis allowDecimals={false} fontSize={12} width={32} />
              <Tooltip />
              <Bar dataKey="count" name="connections" fill="#1d4ed8" />
            </BarChart>
          </ResponsiveContainer>
        </div>
      </figure>
      <figure>
        <figcaption>Connections by adapter</figcaption>
        <div className="chart" aria-hidden="true">
          <ResponsiveContainer width="100%" height={220}>
            <BarChart accessibilityLayer={false} data={adapters} layout="vertical" margin={{ top: 8, right: 16, bottom: 8, left: 16 }}>
              <CartesianGrid strokeDasharray="3 3" horizontal={false} />
              <XAxis type="number" allowDecimals={false} fontSize={12} />
              <YAxis type="category" dataKey="adapter" width={100} fontSize={12} />
              <Tooltip />
              <Bar dataKey="count" name="connections" fill="#0f766e" />
            </BarChart>
          </ResponsiveContainer>
        </div>
      </figure>
      {/* A table ignores height and overflow: the wrapper is what keeps it out of the layout. */}
      <div className="sr-only">
        <table>
          <caption>Connections by adapter</caption>
          <tbody>
            {adapters.map((a) => (
              <tr key={a.adapter}>
                <th scope="row">{a.adapter}</th>
                <td>{a.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <table>
          <caption>Connections per day</caption>
          <tbody>
            {byDay.map((d) => (
              <tr key={d.date}>
                <th scope="row">{d.date}</th>
                <td>{d.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
