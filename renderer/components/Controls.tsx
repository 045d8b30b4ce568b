/**
 * Talking controls: a large hold-to-talk button (and the Space bar while no text field has focus),
 * the hands-free switch, the microphone switch, stop, and a new conversation.
 */
import { useEffect, useRef, useState } from 'react';
import { api } from '../api/current';
import { useUi } from '../store';
import { saveSetting, useSetting } from './useSetting';

function typingInField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !['range', 'checkbox', 'radio', 'button'].includes(target.type);
}

export function Controls() {
  const [mode] = useSetting<'hands-free' | 'push-to-talk'>('mode');
  const listening = useUi((s) => s.status?.listening ?? true);
  const state = useUi((s) => s.state);
  const [held, setHeld] = useState(false);
  const heldRef = useRef(false);
  const ptt = mode === 'push-to-talk';

  const press = (down: boolean) => {
    if (heldRef.current === down) return;
    heldRef.current = down;
    setHeld(down);
    api().send({ type: 'push-to-talk', down });
  };

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
        {!ptt ? 'Hands-free: just talk' : held ? 'Listening… release to send' : 'Hold to talk (Space)'}
      </button>
      <div className="control-row">
        <div className="toggle-row">
          <label htmlFor="hands-free">Hands-free</label>
          <button
            id="hands-free"
            type="button"
            role="switch"
            className="switch"
            aria-checked={!ptt}
            data-testid="hands-free"
            onClick={() => void saveSetting('mode', ptt ? 'hands-free' : 'push-to-talk')}
          >
            <span className="knob" />
          </button>
        </div>
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
