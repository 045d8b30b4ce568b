/** A p50/p95 table of stages: the session's in the latency panel, the history's in the History tab. */
import type { ReactNode } from 'react';
import { formatMs } from '../model/latency';

export interface StatsRow {
  key: string;
  label: string;
  p50: number | null;
  p95: number | null;
  /** Shown on hover (e.g. how many turns the row covers). */
  title?: string;
}

export function StatsTable({ caption, rows, testId, className = 'stats' }: { caption: ReactNode; rows: readonly StatsRow[]; testId: string; className?: string }) {
  return (
    <table className={className} data-testid={testId}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Stage</th>
          <th scope="col">p50</th>
          <th scope="col">p95</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key} title={r.title}>
            <th scope="row">{r.label}</th>
            <td>{formatMs(r.p50)}</td>
            <td>{formatMs(r.p95)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
