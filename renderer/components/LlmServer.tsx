/**
 * Where the language model runs: this computer, or an OpenAI-compatible server (Ollama, LM Studio,
 * llama.cpp's server, vLLM). The address and model are edited as a draft and applied together, so
 * the assistant never reloads half-configured; the API key goes to main's key store and never
 * comes back to the window (it only learns whether one is stored).
 */
import { useEffect, useId, useState } from 'react';
import { sameServer } from '../../electron/secrets/bound-key';
import { api } from '../api/current';
import { SERVER_PRESETS } from '../model/llm-server';
import { useUi } from '../store';
import { Slider } from './Slider';

type Outcome = { ok: true; text: string } | { ok: false; text: string } | null;

/** The key is kept for the address typed above it, and sent only there. */
function ApiKey({ baseUrl }: { baseUrl: string }) {
  const key = useUi((s) => s.status?.apiKey);
  const [text, setText] = useState('');
  const [outcome, setOutcome] = useState<Outcome>(null);
  const id = useId();
  const store = async (value: string | null) => {
    const r = await api().request({ type: 'set-api-key', key: value, baseUrl: baseUrl.trim() });
    setOutcome(r.ok ? { ok: true, text: r.stored ? 'Key stored.' : 'Key removed.' } : { ok: false, text: r.error });
    if (r.ok) setText('');
  };
  return (
    <div className="field">
      <label htmlFor={id}>API key (only if the server needs one)</label>
      <div className="row">
        <input id={id} type="password" autoComplete="off" value={text} maxLength={4096} placeholder={key?.stored ? '•••••••• (stored)' : 'none'} onChange={(e) => setText(e.currentTarget.value)} data-testid="llm-key" />
        <button type="button" className="secondary" disabled={!text.trim() || !baseUrl.trim()} onClick={() => void store(text)} data-testid="llm-key-save">
          Save key
        </button>
        {key?.stored && (
          <button type="button" className="secondary" onClick={() => void store(null)} data-testid="llm-key-remove">
            Remove
          </button>
        )}
      </div>
      <p className="hint" data-testid="llm-key-state">
        {!key?.stored
          ? 'No key is stored.'
          : key.for && sameServer(key.for, baseUrl)
            ? `A key is stored for this address, ${key.protection}.`
            : `The stored key is for ${key.for ?? 'another address'} and is sent only there: enter this server's key to use one here.`}{' '}
        It is never shown again or written to settings.json.
      </p>
      {outcome && <p className={outcome.ok ? 'hint' : 'hint hint-error'} role={outcome.ok ? 'status' : 'alert'}>{outcome.text}</p>}
    </div>
  );
}

export function LlmServerSettings() {
  const llm = useUi((s) => s.settings?.llm);
  const [useServer, setUseServer] = useState(llm?.provider === 'openai-compatible');
  const [baseUrl, setBaseUrl] = useState(llm?.server.baseUrl ?? '');
  const [model, setModel] = useState(llm?.server.model ?? '');
  const [models, setModels] = useState<string[]>([]);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  const urlId = useId();
  const modelId = useId();
  const listId = useId();
  const presetsId = useId();

  useEffect(() => {
    if (!llm) return;
    setUseServer(llm.provider === 'openai-compatible');
    setBaseUrl(llm.server.baseUrl);
    setModel(llm.server.model);
  }, [llm?.provider, llm?.server.baseUrl, llm?.server.model]);

  if (!llm) return null;
  const serving = llm.provider === 'openai-compatible';
  const changed = !serving || baseUrl.trim().replace(/\/+$/, '') !== llm.server.baseUrl || model.trim() !== llm.server.model;

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setOutcome(null);
    try {
      await work();
    } finally {
      setBusy(false);
    }
  };
  const list = () =>
    run(async () => {
      const r = await api().request({ type: 'llm-server-models', baseUrl: baseUrl.trim() });
      if (!r.ok) return setOutcome({ ok: false, text: r.error });
      setModels(r.models);
      if (!model && r.models.length > 0) setModel(r.models[0]!);
      setOutcome({ ok: true, text: r.models.length ? `The server offers ${r.models.length} model${r.models.length === 1 ? '' : 's'}.` : 'The server lists no models.' });
    });
  const test = () =>
    run(async () => {
      const r = await api().request({ type: 'llm-server-test', baseUrl: baseUrl.trim(), model: model.trim() });
      if (!r.ok) return setOutcome({ ok: false, text: r.error });
      setModels(r.models);
      setOutcome({ ok: true, text: `Connected: first token in ${Math.round(r.firstTokenMs)} ms.` });
    });
  const apply = (patch: object) =>
    run(async () => {
      const r = await api().request({ type: 'update-settings', patch: { llm: patch } });
      setOutcome(r.ok ? { ok: true, text: 'Saved; the assistant is reloading.' } : { ok: false, text: r.error });
    });

  return (
    <fieldset className="llm-server" data-testid="llm-provider">
      <legend>Where the language model runs</legend>
      <div className="row" role="radiogroup" aria-label="Where the language model runs">
        <label>
          <input type="radio" name="llm-provider" checked={!useServer} onChange={() => setUseServer(false)} data-testid="llm-provider-local" /> This computer
        </label>
        <label>
          <input type="radio" name="llm-provider" checked={useServer} onChange={() => setUseServer(true)} data-testid="llm-provider-server" /> A server (OpenAI-compatible)
        </label>
      </div>
      {!useServer && serving && (
        <button type="button" className="primary" disabled={busy} onClick={() => void apply({ provider: 'local' })} data-testid="llm-use-local">
          Use this computer again
        </button>
      )}
      {useServer && (
        <>
          <p className="hint">Ollama, LM Studio, llama.cpp&apos;s server or vLLM on another machine. What you say is sent to that server as text. While memory is on, the facts it remembers (the Memory tab) are sent to the server with each conversation.</p>
          <div className="field">
            <label htmlFor={urlId}>Address (ending in /v1)</label>
            <input id={urlId} type="url" list={presetsId} value={baseUrl} maxLength={2000} placeholder="http://localhost:11434/v1" onChange={(e) => setBaseUrl(e.currentTarget.value)} data-testid="llm-url" />
            <datalist id={presetsId}>
              {SERVER_PRESETS.map((p) => (
                <option key={p.url} value={p.url} label={p.name} />
              ))}
            </datalist>
          </div>
          <div className="field">
            <label htmlFor={modelId}>Model</label>
            <div className="row">
              <input id={modelId} list={listId} value={model} maxLength={200} placeholder="llama3.2:3b" onChange={(e) => setModel(e.currentTarget.value)} data-testid="llm-model" />
              <datalist id={listId}>
                {models.map((m) => (
                  <option key={m} value={m} />
                ))}
              </datalist>
              <button type="button" className="secondary" disabled={busy || !baseUrl.trim()} onClick={() => void list()} data-testid="llm-list">
                List models
              </button>
            </div>
          </div>
          <ApiKey baseUrl={baseUrl} />
          <div className="row">
            <button type="button" className="secondary" disabled={busy || !baseUrl.trim() || !model.trim()} onClick={() => void test()} data-testid="llm-test">
              Test connection
            </button>
            <button
              type="button"
              className="primary"
              disabled={busy || !baseUrl.trim() || !model.trim() || !changed}
              onClick={() => void apply({ provider: 'openai-compatible', server: { baseUrl: baseUrl.trim(), model: model.trim() } })}
              data-testid="llm-use-server"
            >
              Use this server
            </button>
          </div>
          {serving && <Slider path="llm.server.stallMs" hint="A server that sends no new text for this long mid-answer is cut off there, and the assistant says so." />}
        </>
      )}
      {busy && <progress aria-label="Asking the server" />}
      {outcome && (
        <p className={outcome.ok ? 'hint' : 'notice notice-error'} role={outcome.ok ? 'status' : 'alert'} data-testid="llm-outcome">
          {outcome.text}
        </p>
      )}
    </fieldset>
  );
}
