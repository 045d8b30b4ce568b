/** Every other setting: barge-in, the language model and the voice; and back to the defaults. */
import { useEffect, useId, useState } from 'react';
import { api } from '../api/current';
import { useUi } from '../store';
import { DesktopSettings } from './DesktopSettings';
import { LlmServerSettings } from './LlmServer';
import { Slider, Toggle } from './Slider';
import { saveSetting, useSetting } from './useSetting';
import { SETTINGS_RANGES } from '../../electron/settings/schema';
import { contextHint, voiceWords } from '../model/settings-words';
import { matchWakePhrase } from '../../electron/pipeline/turns/wake-phrase';

function SystemPrompt() {
  const saved = useUi((s) => s.settings?.llm.systemPrompt ?? '');
  const [text, setText] = useState(saved);
  const id = useId();
  useEffect(() => {
    setText(saved);
  }, [saved]);
  return (
    <div className="field">
      <label htmlFor={id}>System prompt</label>
      <textarea id={id} rows={4} value={text} maxLength={8000} onChange={(e) => setText(e.currentTarget.value)} onBlur={() => text !== saved && void saveSetting('llm.systemPrompt', text)} />
      <p className="hint">Saved when you leave the field; applies to the next answer.</p>
    </div>
  );
}

/** The acknowledgement phrases, saved when the field is left (like the system prompt). */
function Acknowledgements() {
  const saved = useUi((s) => s.settings?.bargeIn.acknowledgements ?? '');
  const on = useUi((s) => s.settings?.bargeIn.backchannels ?? false);
  const [text, setText] = useState(saved);
  const id = useId();
  useEffect(() => {
    setText(saved);
  }, [saved]);
  if (!on) return null;
  return (
    <div className="field">
      <label htmlFor={id}>Acknowledgements</label>
      <input id={id} type="text" value={text} maxLength={1000} onChange={(e) => setText(e.currentTarget.value)} onBlur={() => text !== saved && void saveSetting('bargeIn.acknowledgements', text)} />
      <p className="hint">Separated by commas. A hum (“mm”, “mhm”) counts whatever the recognizer spells it; any other word stops the answer.</p>
    </div>
  );
}

/** The wake phrase, and a check: say it, and see what the recognizer heard and whether it counts. */
function WakePhrase() {
  const saved = useUi((s) => s.settings?.wakePhrase ?? '');
  const lastHeard = useUi((s) => s.lastHeard);
  const [text, setText] = useState(saved);
  /** When the check began: the first words heard after it are its result. */
  const [since, setSince] = useState<number | null>(null);
  const id = useId();
  useEffect(() => {
    setText(saved);
  }, [saved]);
  const result = since !== null && lastHeard && lastHeard.t > since ? lastHeard : null;
  const match = result ? matchWakePhrase(result.text, saved) : null;
  return (
    <fieldset>
      <legend>Wake phrase</legend>
      <div className="field">
        <label htmlFor={id}>Wake phrase</label>
        <input id={id} type="text" value={text} maxLength={60} data-testid="wake-phrase" onChange={(e) => setText(e.currentTarget.value)} onBlur={() => text !== saved && void saveSetting('wakePhrase', text)} />
        <p className="hint">In the wake phrase mode only what begins with it is answered (“{saved}, what time is it”); said alone, the next thing you say within 5 s is.</p>
      </div>
      <div className="field-inline">
        <button type="button" className="secondary" data-testid="wake-check" onClick={() => setSince(lastHeard?.t ?? -Infinity)}>
          Say it now
        </button>
        {since !== null && (
          <p className="hint" data-testid="wake-check-result" aria-live="polite">
            {!result
              ? `Listening: say “${saved}”…`
              : match?.matched
                ? `Heard “${result.text}”: the phrase was recognized.`
                : `Heard “${result.text}”: that is not the phrase. Say it again, or choose words the recognizer knows.`}
          </p>
        )}
      </div>
    </fieldset>
  );
}

function GpuLayers() {
  const [value, change] = useSetting<number | 'auto'>('llm.gpuLayers');
  const id = useId();
  if (value === undefined) return null;
  return (
    <div className="field-inline">
      <div className="toggle-row">
        <label htmlFor={id}>GPU layers: automatic</label>
        <button id={id} type="button" role="switch" className="switch" aria-checked={value === 'auto'} onClick={() => change(value === 'auto' ? 32 : 'auto')}>
          <span className="knob" />
        </button>
      </div>
      {value !== 'auto' && <Slider path="llm.gpuLayers" />}
    </div>
  );
}

/**
 * The voice, counted from 1 as a person counts (the setting counts from 0, as the voice model does).
 * A number field, not a slider: the setting allows up to 9999 and most models have a few voices.
 */
function Voice() {
  const [value, change] = useSetting<number>('tts.speakerId');
  const voices = useUi((s) => s.status?.models.find((m) => m.kind === 'tts')?.voices ?? null);
  const id = useId();
  if (value === undefined) return null;
  const words = voiceWords(value, voices);
  const max = SETTINGS_RANGES['tts.speakerId'].max + 1;
  return (
    <div className="field voice-field">
      <label htmlFor={id}>{words.label}</label>
      <input
        id={id}
        type="number"
        min={1}
        max={max}
        step={1}
        value={value + 1}
        data-testid="voice-number"
        onChange={(e) => {
          const n = Number(e.currentTarget.value);
          if (Number.isInteger(n) && n >= 1 && n <= max) change(n - 1);
        }}
      />
      <p className="hint" data-testid="voice-words">
        {voices ? `${words.value}. ` : ''}The voice model's voices are numbered from 1; a number past its last voice uses the last.
      </p>
    </div>
  );
}

/** The context size, saying the size in use when the model runs with another (it caps it at its training size). */
function ContextSize() {
  const asked = useUi((s) => s.settings?.llm.contextSize);
  const inUse = useUi((s) => (s.status?.llm && !s.status.llm.server ? s.status.llm.contextSize : null));
  if (asked === undefined) return null;
  return <Slider path="llm.contextSize" hint={contextHint(asked, inUse)} />;
}

export function SettingsPanel() {
  const [confirming, setConfirming] = useState(false);
  const reset = async () => {
    const r = await api().request({ type: 'reset-settings' });
    if (!r.ok) useUi.getState().notify('error', r.error);
    setConfirming(false);
  };
  return (
    <section className="settings" aria-labelledby="settings-title">
      <h2 id="settings-title" className="visually-hidden">
        Settings
      </h2>
      <fieldset>
        <legend>Interrupting</legend>
        <Toggle path="bargeIn.enabled" label="Interrupt the assistant by speaking" />
        <Toggle path="bargeIn.backchannels" label="Let “mm-hmm” and “okay” pass" hint="The answer is lowered while you speak over it, and goes on if you were only acknowledging it." />
        <Acknowledgements />
        <Slider path="bargeIn.onsetHoldMs" hint="The answer falls silent at once when you speak over it; if you were only acknowledging it, it goes on, lowered." />
        <Slider path="bargeIn.minSpeechMs" hint="Your speech over the answer needed to stop it." />
        <Slider path="bargeIn.falseInterruptionMs" />
        <Slider path="turnBudgetMs" hint="After this long without an answer, a short holding phrase is spoken." />
        <Toggle path="prepareAnswers" label="Prepare the answer during a pause" hint="Played only if your turn ends with the same words; otherwise dropped unheard." />
      </fieldset>
      <WakePhrase />
      <fieldset>
        <legend>Language model</legend>
        <SystemPrompt />
        <Slider path="llm.temperature" />
        <Slider path="llm.maxTokens" />
        <GpuLayers />
        <ContextSize />
      </fieldset>
      <LlmServerSettings />
      <fieldset>
        <legend>Tools</legend>
        <p className="hint">A language model on a server may call these while it answers (the local model answers without them for now).</p>
        <Toggle path="tools.builtIn.notes" label="Notes" hint="“Note that…”, “read my notes”: kept in notes.md beside the settings." />
        <Toggle path="tools.builtIn.clipboard" label="Read the clipboard" hint="“Read what I copied”: the clipboard's text goes to the language model when it asks." />
        <Toggle path="tools.builtIn.open" label="Open links and files" hint="“Open example.com”: the assistant says what it is about to open and waits for your yes." />
        <Slider path="tools.timeoutMs" hint="A tool call that takes longer is cut off, and the model answers with what it has." />
      </fieldset>
      <DesktopSettings />
      <fieldset>
        <legend>Voice</legend>
        <Voice />
        <Slider path="tts.speed" />
      </fieldset>
      <div className="reset">
        {confirming ? (
          <>
            <span>Reset every setting to its default?</span>
            <button type="button" className="danger" onClick={() => void reset()}>
              Reset
            </button>
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </>
        ) : (
          <button type="button" className="secondary" data-testid="reset-settings" onClick={() => setConfirming(true)}>
            Reset to defaults…
          </button>
        )}
      </div>
    </section>
  );
}
