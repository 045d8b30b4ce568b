/**
 * The Memory tab: what the assistant was asked to remember ("remember that my sister is called
 * Anna"), each fact with the date it was said and a Delete button, Clear all (asked in the page
 * first), the switch that keeps memory on or off, and why the memory file could not be used.
 * Changes go to main as commands; the list comes back in `memory` events.
 */
import { useId, useState } from 'react';
import { api } from '../api/current';
import { clearQuestion, deleteLabel, formatFactDate, newestFirst, serverSentence } from '../model/memory';
import { useUi } from '../store';
import { Toggle } from './Slider';
import { useSetting } from './useSetting';

function ClearAll({ question }: { question: string }) {
  const [confirming, setConfirming] = useState(false);
  const questionId = useId();
  return (
    <div className="reset memory-clear">
      {confirming ? (
        <>
          <span id={questionId}>{question}</span>
          <button
            type="button"
            className="danger"
            data-testid="memory-clear-confirm"
            aria-describedby={questionId}
            onClick={() => {
              api().send({ type: 'clear-memory' });
              setConfirming(false);
            }}
          >
            Clear all
          </button>
          {/* Focus lands on the safe choice. */}
          <button type="button" className="secondary" autoFocus data-testid="memory-clear-cancel" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </>
      ) : (
        <>
          <button type="button" className="secondary" data-testid="memory-clear" onClick={() => setConfirming(true)}>
            Clear all…
          </button>
        </>
      )}
    </div>
  );
}

export function MemoryPanel() {
  const memory = useUi((s) => s.memory);
  const llm = useUi((s) => s.settings?.llm);
  const [enabled] = useSetting<boolean>('memory.enabled');
  if (!memory) return <p className="empty">Connecting…</p>;
  const facts = newestFirst(memory.facts);
  const server = serverSentence(llm);
  return (
    <section className="memory" aria-labelledby="memory-title" data-testid="memory">
      <h2 id="memory-title" className="visually-hidden">
        Memory
      </h2>
      <div className="memory-switch">
        <Toggle
          path="memory.enabled"
          label="Remember what I ask"
          hint={
            enabled === false
              ? 'Off: nothing new is kept and the facts stay out of the conversation; they are not deleted.'
              : 'On: the assistant keeps what you ask it to remember and gives these facts to the language model in every conversation.'
          }
        />
      </div>
      {memory.problem && (
        <p className="notice notice-error" role="alert" data-testid="memory-problem">
          {memory.problem}
        </p>
      )}
      {server && (
        <p className="hint" data-testid="memory-server">
          {server}
        </p>
      )}
      {facts.length > 0 ? (
        <ul className="fact-list" aria-label="Remembered facts" data-testid="memory-facts">
          {facts.map((f) => (
            <li key={f.id} className="fact" data-testid="memory-fact" data-fact-id={f.id}>
              <span className="fact-text" data-testid="memory-fact-text">
                {f.text}
              </span>
              <time className="fact-date" dateTime={f.said} data-testid="memory-fact-date">
                {formatFactDate(f.said)}
              </time>
              <button type="button" className="secondary" aria-label={deleteLabel(f.text)} data-testid="memory-fact-delete" onClick={() => api().send({ type: 'forget-fact', id: f.id })}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      ) : (
        !memory.problem && (
          <p className="empty" data-testid="memory-empty">
            Say “remember that …” and it shows here.
          </p>
        )
      )}
      {(facts.length > 0 || memory.problem) && <ClearAll question={clearQuestion(memory)} />}
    </section>
  );
}
