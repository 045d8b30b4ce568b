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
  | ({ run: true } & RunningTools)
  | {
      run: false;
      /**
       * A tool that changes something was wanted. An adopted draft returns its turn's hooks: the call
       * then runs, or asks for the user's yes, as in the committed answer; otherwise null.
       */
      onWanted: () => RunningTools | null;
      /** A prepared answer: a tool that only reads runs, its call told here (counted only if the answer is adopted). */
      readOnly?: { onUse: (use: ToolUse) => void; onRound: (round: ToolRound) => void };
    };

/** Where a committed answer's tool calls are told, and the question it asks before one that changes something. */
export interface RunningTools {
  onUse: (use: ToolUse) => void;
  onRound: (round: ToolRound) => void;
  onAsk: (request: ToolRequest) => string;
}

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
        const callTool = async (call: ToolCall): Promise<string> => {
          // Without both the model is offered no tool (below), so no call comes.
          if (!hooks || !box) return 'error: no tool may run for this answer';
          let run: RunningTools | null = hooks.run ? hooks : null;
          if (!hooks.run) {
            const { readOnly } = hooks;
            if (readOnly && box.readsOnly(call)) {
              const result = await box.call(call, signal, readOnly.onUse);
              readOnly.onRound({ calls: [call], results: [{ id: call.id, content: result }] });
              return result;
            }
            run = hooks.onWanted();
          }
          // Calls beside the one that asked wait too: nothing runs until the user has answered.
          if (asked.signal.aborted) return ASKED_RESULT;
          if (!run) return 'error: no tool may run for this answer';
          const request = box.request(call);
          if (request) {
            const question = ` ${run.onAsk(request)}`;
            spec.onText(question);
            write(question);
            asked.abort();
            run.onRound({ calls: [call], results: [{ id: call.id, content: ASKED_RESULT }] });
            return ASKED_RESULT;
          }
          const result = await box.call(call, signal, run.onUse);
          run.onRound({ calls: [call], results: [{ id: call.id, content: result }] });
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
