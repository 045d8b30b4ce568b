/**
 * The desktop around the window: the global shortcut (one-shot listening from any program), close
 * to tray, start at login, and the one-shot chime. A shortcut another program holds is refused by
 * main and the refusal is shown here; the field keeps what was typed so it can be corrected.
 */
import { useEffect, useId, useState } from 'react';
import { api } from '../api/current';
import { acceleratorLabel, EXAMPLE_SHORTCUT, parseAccelerator } from '../../electron/settings/accelerator';
import { shortcutConflict } from '../../electron/desktop/known-shortcuts';
import { browserPlatform } from '../model/labels';
import { patchAt } from '../model/settings-patch';
import { shortcutFieldText, shortcutToSave } from '../model/shortcut-field';
import { useUi } from '../store';
import { Toggle } from './Slider';

function Shortcut() {
  const saved = useUi((s) => s.settings?.desktop.shortcut ?? '');
  const desktop = useUi((s) => s.status?.desktop);
  const platform = browserPlatform();
  // Shown in this platform's words ("Ctrl+Alt+Space", "⌥⌘Space"); either those or accelerator syntax may be typed.
  const shown = shortcutFieldText(saved, platform);
  const [text, setText] = useState(shown);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  useEffect(() => setText(shown), [shown]);
  const save = async (value: string) => {
    setBusy(true);
    setError(null);
    const r = await api().request({ type: 'update-settings', patch: patchAt('desktop.shortcut', value) });
    if (!r.ok) setError(r.error);
    setBusy(false);
  };
  const inUse = desktop?.shell && !desktop.shortcutError && desktop.shortcut;
  const toSave = shortcutToSave(text, saved, platform);
  // Checked as it is typed: a known system shortcut is a warning (it may still work), a malformed one an error.
  const typed = toSave ? parseAccelerator(toSave, platform) : null;
  const warning = typed?.ok ? shortcutConflict(typed.accelerator, platform) : null;
  return (
    <div className="field">
      <label htmlFor={id}>Global shortcut (one-shot listening from any program)</label>
      <div className="row">
        <input id={id} className="shortcut-input" value={text} maxLength={100} placeholder={acceleratorLabel(EXAMPLE_SHORTCUT, platform)} onChange={(e) => setText(e.currentTarget.value)} data-testid="shortcut-input" />
        <button type="button" className="secondary" disabled={busy || toSave === saved} onClick={() => void save(toSave)} data-testid="shortcut-save">
          Save
        </button>
        {saved && (
          <button type="button" className="secondary" disabled={busy} onClick={() => void save('')} data-testid="shortcut-clear">
            None
          </button>
        )}
      </div>
      <p className="hint" data-testid="shortcut-state">
        {!desktop?.shell
          ? 'The global shortcut, the tray and start at login work in the desktop app; this window runs in a browser.'
          : desktop.shortcutError
            ? desktop.shortcutError
            : inUse
              ? `${acceleratorLabel(desktop.shortcut, platform)} starts one-shot listening from any program.`
              : 'No global shortcut.'}
      </p>
      {inUse && desktop.shortcutNote && (
        <p className="hint" data-testid="shortcut-note">
          {desktop.shortcutNote}
        </p>
      )}
      {typed && !typed.ok && toSave !== saved && (
        <p className="hint hint-error" data-testid="shortcut-invalid">
          {typed.error}
        </p>
      )}
      {warning && (
        <p className="hint" data-testid="shortcut-warning">
          {warning}
        </p>
      )}
      {error && (
        <p className="hint hint-error" role="alert" data-testid="shortcut-error">
          {error}
        </p>
      )}
    </div>
  );
}

export function DesktopSettings() {
  return (
    <fieldset className="desktop-settings" data-testid="desktop-settings">
      <legend>Desktop</legend>
      <Shortcut />
      <Toggle path="desktop.listenChime" label="Chime when one-shot listening starts and stops" />
      <Toggle path="desktop.closeToTray" label="Closing the window keeps the assistant in the tray" />
      <Toggle path="desktop.startAtLogin" label="Start when I log in" />
    </fieldset>
  );
}
