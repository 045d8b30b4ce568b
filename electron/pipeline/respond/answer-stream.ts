import type { ChatMessage, LanguageModel, LlmRoute } from '../../engines/llm-types';
import type { ToolCall } from '../../engines/tool-calls';
import { MAX_TOOL_ROUNDS, type ToolRound } from '../../engines/tool-calls';
import type { Toolbox, ToolRequest, ToolUse } from '../../tools/toolbox';
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
  /** The first spoken chunk's length in words (tts.firstChunkWords; 0: the whole first clause). */
  firstChunkWords: number;
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
 * What an answer does with the model's tool calls: a committed turn runs them (each recorded, each
 * round kept for the conversation), and a call to a tool that changes something ends the answer
 * with the question `onAsk` gives; a prepared answer runs only tools that read (`readOnly`: they
 * count once it is adopted), and hears when another one was wanted (the turn will ask again).
 */
export type ToolHooks =
  | { run: true; onUse: (use: ToolUse) => void; onRound: (round: ToolRound) => void; onAsk: (request: ToolRequest) => string }
  | {
      run: false;
      /**
       * A tool that changes something was wanted. An adopted draft returns its turn's `onAsk`: a call
       * that needs the user's yes then asks, as the committed answer would have.
       */
      onWanted: () => ((request: ToolRequest) => string) | null;
      /** A prepared answer: a tool that only reads runs, its call told here (counted only if the answer is adopted). */
      readOnly?: { onUse: (use: ToolUse) => void; onRound: (round: ToolRound) => void };
    };

/** What the model is told of a call that waits for the user's yes. */
export const ASKED_RESULT = 'not run yet: the user was asked to confirm, and it runs only if they say yes';

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
        // A question for the user ends the answer: the model writes nothing after it.
        const asked = new AbortController();
        const both = AbortSignal.any([signal, asked.signal]);
        /** The answer ends with the question `onAsk` gives for `request`. */
        const ask = (call: ToolCall, request: ToolRequest, onAsk: (request: ToolRequest) => string, onRound: (round: ToolRound) => void): string => {
          const question = ` ${onAsk(request)}`;
          spec.onText(question);
          write(question);
          asked.abort();
          onRound({ calls: [call], results: [{ id: call.id, content: ASKED_RESULT }] });
          return ASKED_RESULT;
        };
        const callTool = async (call: ToolCall): Promise<string> => {
          if (!hooks?.run || !box) {
            if (hooks && !hooks.run && box && hooks.readOnly && box.readsOnly(call)) {
              const result = await box.call(call, signal, hooks.readOnly.onUse);
              hooks.readOnly.onRound({ calls: [call], results: [{ id: call.id, content: result }] });
              return result;
            }
            const onAsk = hooks && !hooks.run ? hooks.onWanted() : null;
            const request = onAsk && box && !asked.signal.aborted ? box.request(call) : null;
            const readOnly = hooks && !hooks.run ? hooks.readOnly : undefined;
            if (onAsk && request && readOnly) return ask(call, request, onAsk, readOnly.onRound);
            return asked.signal.aborted ? ASKED_RESULT : 'error: no tool may run for this answer';
          }
          // Calls beside the one that asked wait too: nothing runs until the user has answered.
          if (asked.signal.aborted) return ASKED_RESULT;
          const request = box.request(call);
          if (request) return ask(call, request, hooks.onAsk, hooks.onRound);
          const result = await box.call(call, signal, hooks.onUse);
          hooks.onRound({ calls: [call], results: [{ id: call.id, content: result }] });
          return result;
        };
        try {
          await deps.llm.generate(spec.prompt(), {
            signal: both,
            maxTokens: opts.maxTokens,
            temperature: opts.temperature,
            onRoute: spec.onRoute,
            ...(box && hooks ? { tools: box.specs, maxToolRounds: MAX_TOOL_ROUNDS, callTool } : {}),
            onText: (delta) => {
              if (both.aborted) return;
              spec.onText(delta);
              write(delta);
            },
          });
        } catch (e) {
          // Stopped for the question: not a failure of the model.
          if (!(asked.signal.aborted && !signal.aborted)) throw e;
        }
      },
    },
    {
      tts: deps.tts,
      sink: spec.sink,
      clock: deps.clock,
      voice: () => voiceOf(deps.options()),
      firstClauseWords: deps.options().firstChunkWords,
      ...(spec.announce ? { announce: spec.announce } : {}),
      onSourceError: spec.onError,
    },
  );
}
