import type { ChatMessage, LanguageModel, LlmRoute } from '../../engines/llm-types';
import { MAX_TOOL_ROUNDS } from '../../engines/tool-calls';
import type { Toolbox, ToolUse } from '../../tools/toolbox';
import type { SpeechSynthesizer } from '../../engines/tts';
import type { Clock } from '../clock';
import type { EventHub } from '../events';
import { Utterance } from '../speak/utterance';
import type { UtteranceSink } from '../speak/utterance-sink';
import type { Conversation } from './conversation';

/** How an answer is written and spoken; read when it starts (the voice again at each clause). */
export interface AnswerOptions {
  maxTokens: number;
  temperature: number;
  speakerId: number;
  speed: number;
}

/** What a reply and a prepared answer both write with. */
export interface AnswerDeps {
  llm: LanguageModel;
  /** The history the answer is written over. */
  conversation: Conversation;
  /** The serialized synthesizer every utterance shares. */
  tts: SpeechSynthesizer;
  clock: Clock;
  options: () => AnswerOptions;
  /** The LLM takes one prompt at a time: the previous reply's settlement, which this prompt's history depends on. */
  before: Promise<void>;
  /** The tools the model may call (none: null or absent). */
  tools?: Toolbox | null;
}

/**
 * What an answer does with the model's tool calls: a committed turn runs them (each recorded); a
 * prepared answer runs none (the turn will ask again), and hears that one was wanted.
 */
export type ToolHooks = { run: true; onUse: (use: ToolUse) => void } | { run: false; onWanted: () => void };

/** What one answer stream is written from and where its words go. */
export interface AnswerStreamSpec {
  sink: UtteranceSink;
  /** The prompt, built when the model starts writing (the conversation may have changed meanwhile). */
  prompt: () => readonly ChatMessage[];
  /** Each piece of text the model writes, before it is spoken. */
  onText: (delta: string) => void;
  onRoute: (route: LlmRoute) => void;
  /** The model failed: what it had written is still spoken. */
  onError: (e: Error) => void;
  /** Clauses and audio announced as this turn's events (a prepared answer gets them once adopted). */
  announce?: { events: EventHub; turn: number };
  tools?: ToolHooks;
}

/** The voice settings of the answer options. */
export function voiceOf(o: AnswerOptions): { speakerId: number; speed: number } {
  return { speakerId: o.speakerId, speed: o.speed };
}

/**
 * The language model writing an answer as one utterance: its text is spoken clause by clause while
 * the model goes on, and cancelling the utterance aborts the generation too.
 */
export function answerStream(deps: AnswerDeps, spec: AnswerStreamSpec): Utterance {
  const opts = deps.options();
  return new Utterance(
    {
      kind: 'stream',
      write: async (write, signal) => {
        const box = deps.tools && spec.tools && !deps.tools.empty ? deps.tools : null;
        const hooks = spec.tools;
        await deps.llm.generate(spec.prompt(), {
          signal,
          maxTokens: opts.maxTokens,
          temperature: opts.temperature,
          onRoute: spec.onRoute,
          ...(box && hooks
            ? {
                tools: box.specs,
                maxToolRounds: MAX_TOOL_ROUNDS,
                callTool: (call) => {
                  if (hooks.run) return box.call(call, signal, hooks.onUse);
                  hooks.onWanted();
                  return Promise.resolve('error: no tool may run for this answer');
                },
              }
            : {}),
          onText: (delta) => {
            spec.onText(delta);
            write(delta);
          },
        });
      },
    },
    {
      tts: deps.tts,
      sink: spec.sink,
      clock: deps.clock,
      voice: () => voiceOf(deps.options()),
      ...(spec.announce ? { announce: spec.announce } : {}),
      onSourceError: spec.onError,
    },
  );
}
