/** Every other setting: barge-in, the language model and the voice; and back to the defaults. */
import { useEffect, useId, useState } from 'react';
import { api } from '../api/current';
import { useUi } from '../store';
import { DesktopSettings } from './DesktopSettings';
import { LlmServerSettings } from './LlmServer';
import { Slider, Toggle } from './Slider';
import { saveSetting, useSetting } from './useSetting';

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
        <Slider path="bargeIn.minSpeechMs" hint="Your speech over the answer needed to stop it." />
        <Slider path="bargeIn.falseInterruptionMs" />
        <Slider path="turnBudgetMs" hint="After this long without an answer, a short holding phrase is spoken." />
        <Toggle path="prepareAnswers" label="Prepare the answer during a pause" hint="Played only if your turn ends with the same words; otherwise dropped unheard." />
      </fieldset>
      <fieldset>
        <legend>Language model</legend>
        <SystemPrompt />
        <Slider path="llm.temperature" />
        <Slider path="llm.maxTokens" />
        <GpuLayers />
        <Slider path="llm.contextSize" hint="Changing the context size or GPU layers reloads the model." />
      </fieldset>
      <LlmServerSettings />
      <DesktopSettings />
      <fieldset>
        <legend>Voice</legend>
        <Slider path="tts.speakerId" />
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
