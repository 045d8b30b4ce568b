/**
 * Talking controls: the mode (hands-free, push-to-talk, one-shot, wake phrase), a large talk button (held in
 * push-to-talk, pressed once in one-shot; the Space bar too while no text field has focus), the
 * microphone switch, stop, and a new conversation.
 */
import { useEffect, useRef, useState } from 'react';
import { api } from '../api/current';
import { useUi } from '../store';
import type { Mode } from '../../electron/settings/schema';
import { talkButtonLabel } from '../model/labels';
import { saveSetting, useSetting } from './useSetting';

const MODES: readonly { mode: Mode; label: string; hint: string }[] = [
  { mode: 'hands-free', label: 'Hands-free', hint: 'Always listening: just talk' },
  { mode: 'push-to-talk', label: 'Push to talk', hint: 'Hold the button or Space while you talk' },
  { mode: 'one-shot', label: 'One shot', hint: 'Press once (or the global shortcut) to ask one thing; the microphone is idle otherwise' },
  { mode: 'wake-phrase', label: 'Wake phrase', hint: 'Always listening, but answers only what begins with the wake phrase (Settings)' },
];

function ModePicker({ mode }: { mode: Mode | undefined }) {
  return (
    <div className="modes" role="radiogroup" aria-label="How to talk">
      {MODES.map((m) => (
        <button
          key={m.mode}
          type="button"
          role="radio"
          aria-checked={mode === m.mode}
          title={m.hint}
          data-testid={`mode-${m.mode}`}
          className={mode === m.mode ? 'mode selected' : 'mode'}
          onClick={() => mode !== m.mode && void saveSetting('mode', m.mode)}
        >
          {m.label}
        </button>
      ))}
    </div>
  );
}

function typingInField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !['range', 'checkbox', 'radio', 'button'].includes(target.type);
}

export function Controls() {
  const [mode] = useSetting<Mode>('mode');
  const shortcut = useUi((s) => (s.status?.desktop.shell ? s.status.desktop.shortcut : ''));
  const listening = useUi((s) => s.status?.listening ?? true);
  const state = useUi((s) => s.state);
  const [held, setHeld] = useState(false);
  const heldRef = useRef(false);
  const ptt = mode === 'push-to-talk';
  const oneShot = mode === 'one-shot';
  const wakePhrase = useUi((s) => s.settings?.wakePhrase ?? '');
  const activate = () => api().send({ type: 'activate' });

  const press = (down: boolean) => {
    if (heldRef.current === down) return;
    heldRef.current = down;
    setHeld(down);
    api().send({ type: 'push-to-talk', down });
  };

  useEffect(() => {
    if (!oneShot) return;
    // One-shot: Space is one press, like the global shortcut (no hold).
    const onDown = (e: KeyboardEvent) => {
      if (e.code !== 'Space' || typingInField(e.target) || e.repeat) return;
      e.preventDefault();
      activate();
    };
    window.addEventListener('keydown', onDown);
    return () => window.removeEventListener('keydown', onDown);
  }, [oneShot]);

  useEffect(() => {
    if (!ptt) return;
    const onDown = (e: KeyboardEvent) => {
      if (e.code !== 'Space' || typingInField(e.target)) return;
      e.preventDefault();
      if (!e.repeat) press(true);
    };
    const onUp = (e: KeyboardEvent) => {
      if (e.code !== 'Space' || !heldRef.current) return;
      e.preventDefault();
      press(false);
    };
    // Releasing outside the window must not leave the key "held".
    const onBlur = () => press(false);
    window.addEventListener('keydown', onDown);
    window.addEventListener('keyup', onUp);
    window.addEventListener('blur', onBlur);
    return () => {
      window.removeEventListener('keydown', onDown);
      window.removeEventListener('keyup', onUp);
      window.removeEventListener('blur', onBlur);
    };
  }, [ptt]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') api().send({ type: 'interrupt' });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <div className="controls">
      <ModePicker mode={mode} />
      {oneShot ? (
        <button
          type="button"
          className={`talk${state === 'idle' ? '' : ' held'}`}
          aria-pressed={state === 'listening' || state === 'hearing'}
          data-testid="talk-button"
          data-state={state}
          onClick={activate}
          onKeyDown={(e) => {
            // Space is handled once for the whole window (above); Enter and a click press the button.
            if (e.key === ' ') e.preventDefault();
          }}
        >
          {talkButtonLabel(state, shortcut)}
        </button>
      ) : (
      <button
        type="button"
        className={`talk${held ? ' held' : ''}`}
        disabled={!ptt || !listening}
        aria-pressed={held}
        data-testid="talk-button"
        onPointerDown={(e) => {
          e.currentTarget.setPointerCapture?.(e.pointerId);
          press(true);
        }}
        onPointerUp={() => press(false)}
        onPointerCancel={() => press(false)}
        onKeyDown={(e) => {
          if ((e.key === 'Enter' || e.key === ' ') && !e.repeat) {
            e.preventDefault();
            e.stopPropagation();
            press(true);
          }
        }}
        onKeyUp={(e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            e.stopPropagation();
            press(false);
          }
        }}
      >
        {mode === 'wake-phrase' ? `Say “${wakePhrase}” first` : !ptt ? 'Hands-free: just talk' : held ? 'Listening… release to send' : 'Hold to talk (Space)'}
      </button>
      )}
      <div className="control-row">
        <button type="button" className="secondary" aria-pressed={!listening} data-testid="mic-toggle" onClick={() => api().send({ type: 'set-listening', listening: !listening })}>
          {listening ? 'Mute microphone' : 'Unmute microphone'}
        </button>
        <button type="button" className="secondary" disabled={state !== 'speaking' && state !== 'thinking'} onClick={() => api().send({ type: 'interrupt' })}>
          Stop (Esc)
        </button>
        <button type="button" className="secondary" onClick={() => api().send({ type: 'reset-conversation' })}>
          New conversation
        </button>
      </div>
    </div>
  );
}
