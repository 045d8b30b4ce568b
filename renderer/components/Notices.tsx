/** Notices and errors from the assistant, each with a dismiss button. */
import { useUi } from '../store';

export function Notices() {
  const notices = useUi((s) => s.notices);
  const dismiss = useUi((s) => s.dismiss);
  if (notices.length === 0) return null;
  return (
    <div className="notices" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className={`notice notice-${n.level}`} role={n.level === 'error' ? 'alert' : 'status'} data-testid="notice">
          <span>{n.message}</span>
          <button type="button" className="icon" aria-label="Dismiss" onClick={() => dismiss(n.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
