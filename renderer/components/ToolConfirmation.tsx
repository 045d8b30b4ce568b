/**
 * The assistant's open question about a tool that changes something ("I'm about to open
 * example.com"): Run does what a spoken yes would, Cancel what a no would. Shown only while the
 * question is open; a spoken answer, another request or silence closes it.
 */
import { api } from '../api/current';
import { useUi } from '../store';

export function ToolConfirmation() {
  const pending = useUi((s) => s.status?.confirmation ?? null);
  if (!pending) return null;
  return (
    <section className="panel confirmation" role="alertdialog" aria-labelledby="confirmation-title" aria-describedby="confirmation-action" data-testid="tool-confirmation">
      <h2 id="confirmation-title">Waiting for your yes</h2>
      <p id="confirmation-action">
        The assistant is about to <strong>{pending.action}</strong>. Say “yes” or “no”, or:
      </p>
      <div className="confirmation-buttons">
        <button type="button" className="primary" data-testid="confirmation-run" onClick={() => api().send({ type: 'confirm-tool', id: pending.id, run: true })}>
          Run
        </button>
        <button type="button" className="secondary" data-testid="confirmation-cancel" onClick={() => api().send({ type: 'confirm-tool', id: pending.id, run: false })}>
          Cancel
        </button>
      </div>
    </section>
  );
}
