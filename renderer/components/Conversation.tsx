/** The conversation: the user's words (live while they speak) and the answers as they stream in. */
import { useEffect, useRef } from 'react';
import { turnEnds } from '../model/labels';
import { formatMs } from '../model/latency';
import { useUi, type ConversationEntry } from '../store';

function Answer({ e }: { e: ConversationEntry }) {
  if (e.heard !== null) {
    const rest = e.assistant.startsWith(e.heard) ? e.assistant.slice(e.heard.length) : '';
    return (
      <p className="bubble assistant interrupted" data-testid="assistant-text">
        <span className="heard">{e.heard}</span>
        {rest && <span className="unheard" aria-label="not heard">{rest}</span>}
        <span className="tag">interrupted</span>
      </p>
    );
  }
  if (!e.assistant && !e.holdingPhrase) return null;
  return (
    <p className="bubble assistant" data-testid="assistant-text">
      {e.holdingPhrase && <span className="holding">{e.holdingPhrase} </span>}
      {e.assistant}
    </p>
  );
}

export function Conversation() {
  const entries = useUi((s) => s.entries);
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Braced: newer Chromium returns a promise from scrollIntoView, which must not reach React.
    void end.current?.scrollIntoView({ block: 'end' });
  }, [entries]);
  return (
    <section className="conversation" aria-label="Conversation" aria-live="polite">
      {entries.length === 0 && <p className="empty">Say something; in push-to-talk mode hold the button (or Space), in one-shot mode press it once.</p>}
      {entries.map((e) => (
        <article key={e.turn} className="exchange" data-testid="exchange">
          {e.user && (
            <p className={`bubble user${e.userFinal ? '' : ' partial'}`} data-testid="user-text">
              {e.user}
            </p>
          )}
          <Answer e={e} />
          {e.backchannels.length > 0 && (
            <p className="backchannels" data-testid="backchannels" title="Acknowledgements you said while it spoke: the answer went on">
              {e.backchannels.map((b) => `“${b}”`).join(' · ')}
            </p>
          )}
          {e.report && (
            <p className="meta">
              {turnEnds(e.report)}
              {e.report.mergedContinuation && ' · continued after a pause'}
              {e.report.command && <span data-testid="turn-command"> · command: {e.report.command.name}</span>}
              {' · '}voice to voice {formatMs(e.report.latency.voiceToVoiceMs)}
              {e.report.error && <span className="error"> · {e.report.error}</span>}
            </p>
          )}
        </article>
      ))}
      <div ref={end} />
    </section>
  );
}
