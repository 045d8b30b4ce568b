/**
 * Sentence templates: compiled from the syntax described in sentences.ts, matched against a
 * WHOLE token list (a template that matches only part of the utterance does not match). Pure.
 *
 * Matching backtracks: an optional group is tried with each alternative, then without; a slot
 * tries every span its parser accepts. Templates are short and utterances are capped (see
 * match.ts), so this stays well under a millisecond per utterance.
 */

export type SlotType = 'duration' | 'time' | 'name' | 'text';
export const SLOT_TYPES: readonly SlotType[] = ['duration', 'time', 'name', 'text'];

export type TemplateNode =
  | { kind: 'word'; word: string }
  | { kind: 'slot'; slot: SlotType }
  | { kind: 'group'; options: TemplateNode[][]; optional: boolean };

export interface CompiledTemplate {
  source: string;
  nodes: TemplateNode[];
  /** Words every match contains: a cheap test that skips most templates for an utterance. */
  required: string[];
}

/** Most tokens a slot can take; longer spans are not tried. */
const SLOT_MAX_TOKENS: Record<SlotType, number> = { duration: 12, time: 8, name: 3, text: 24 };

export class TemplateError extends Error {}

const SPECIAL = new Set(['[', ']', '(', ')', '|', '<', '>', '{', '}']);

function lex(src: string): string[] {
  const out: string[] = [];
  let word = '';
  const flush = () => {
    if (word) out.push(word);
    word = '';
  };
  for (const ch of src) {
    if (SPECIAL.has(ch)) {
      flush();
      out.push(ch);
    } else if (/\s/.test(ch)) flush();
    else word += ch;
  }
  flush();
  return out;
}

/**
 * Compiles one template. `expansions` are the named rules `<name>` may refer to (their text is
 * itself template syntax); a rule that refers to itself, directly or not, is an error.
 */
export function compileTemplate(src: string, expansions: Readonly<Record<string, string>>): CompiledTemplate {
  const nodes = parse(src, expansions, []);
  return { source: src, nodes, required: requiredWords(nodes) };
}

function parse(src: string, expansions: Readonly<Record<string, string>>, stack: string[]): TemplateNode[] {
  const toks = lex(src);
  let i = 0;
  const fail = (why: string): never => {
    throw new TemplateError(`${why} in template "${src}"`);
  };

  // seq := item* ; stops at ']' ')' '|' or the end
  const seq = (): TemplateNode[] => {
    const nodes: TemplateNode[] = [];
    while (i < toks.length && toks[i] !== ']' && toks[i] !== ')' && toks[i] !== '|') {
      const t = toks[i++]!;
      if (t === '[' || t === '(') {
        const close = t === '[' ? ']' : ')';
        const options: TemplateNode[][] = [seq()];
        while (toks[i] === '|') {
          i++;
          options.push(seq());
        }
        if (toks[i] !== close) fail(`missing "${close}"`);
        i++;
        if (options.some((o) => o.length === 0)) fail('empty alternative');
        nodes.push({ kind: 'group', options, optional: t === '[' });
      } else if (t === '{') {
        const name = toks[i++];
        if (toks[i++] !== '}' || !name) fail('bad slot');
        if (!SLOT_TYPES.includes(name as SlotType)) fail(`unknown slot {${name}}`);
        nodes.push({ kind: 'slot', slot: name as SlotType });
      } else if (t === '<') {
        const name = toks[i++];
        if (toks[i++] !== '>' || !name) fail('bad expansion');
        const body = expansions[name!];
        if (body === undefined) fail(`unknown expansion <${name}>`);
        if (stack.includes(name!)) fail(`expansion <${name}> refers to itself`);
        nodes.push({ kind: 'group', options: [parse(body!, expansions, [...stack, name!])], optional: false });
      } else if (SPECIAL.has(t)) {
        fail(`unexpected "${t}"`);
      } else {
        nodes.push({ kind: 'word', word: t });
      }
    }
    return nodes;
  };

  const nodes = seq();
  if (i < toks.length) fail(`unexpected "${toks[i]}"`);
  const slots = slotsOf(nodes);
  if (new Set(slots).size !== slots.length) fail('a slot appears twice');
  return nodes;
}

function slotsOf(nodes: readonly TemplateNode[]): SlotType[] {
  return nodes.flatMap((n) => (n.kind === 'slot' ? [n.slot] : n.kind === 'group' ? unique(n.options.flatMap(slotsOf)) : []));
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

function requiredWords(nodes: readonly TemplateNode[]): string[] {
  const out: string[] = [];
  for (const n of nodes) {
    if (n.kind === 'word') out.push(n.word);
    else if (n.kind === 'group' && !n.optional) {
      // A word is required by a group only when every alternative requires it.
      const per = n.options.map((o) => new Set(requiredWords(o)));
      for (const w of per[0] ?? []) if (per.every((s) => s.has(w))) out.push(w);
    }
  }
  return unique(out);
}

/** Every slot type a template can fill (for checks on the data). */
export function templateSlots(t: CompiledTemplate): SlotType[] {
  return unique(slotsOf(t.nodes));
}

/** Parses the tokens a slot spans into its values, or null when they are not such a value. */
export type SlotParser = (slot: SlotType, words: readonly string[]) => Record<string, string | number | boolean | null> | null;

/**
 * Matches a template against the whole token list. Returns the slot values (merged) or null.
 * `cache` memoizes slot parses across the templates tried for the same tokens.
 */
export function matchTemplate(
  template: CompiledTemplate,
  tokens: readonly string[],
  parseSlot: SlotParser,
  cache: Map<string, Record<string, string | number | boolean | null> | null> = new Map(),
): Record<string, string | number | boolean | null> | null {
  for (const w of template.required) if (!tokens.includes(w)) return null;
  const captured: Array<Record<string, string | number | boolean | null>> = [];

  const slotValue = (slot: SlotType, from: number, to: number) => {
    const key = `${slot}:${from}:${to}`;
    if (!cache.has(key)) cache.set(key, parseSlot(slot, tokens.slice(from, to)));
    return cache.get(key)!;
  };

  // Continuation passing: `k` is what must still match after this sequence.
  const m = (seq: readonly TemplateNode[], i: number, pos: number, k: (pos: number) => boolean): boolean => {
    if (i === seq.length) return k(pos);
    const node = seq[i]!;
    if (node.kind === 'word') return tokens[pos] === node.word && m(seq, i + 1, pos + 1, k);
    if (node.kind === 'group') {
      const next = (p: number) => m(seq, i + 1, p, k);
      for (const opt of node.options) if (m(opt, 0, pos, next)) return true;
      return node.optional && next(pos);
    }
    const last = Math.min(tokens.length, pos + SLOT_MAX_TOKENS[node.slot]);
    for (let end = pos + 1; end <= last; end++) {
      const v = slotValue(node.slot, pos, end);
      if (v === null) continue;
      captured.push(v);
      if (m(seq, i + 1, end, k)) return true;
      captured.pop();
    }
    return false;
  };

  if (!m(template.nodes, 0, 0, (pos) => pos === tokens.length)) return null;
  return Object.assign({}, ...captured) as Record<string, string | number | boolean | null>;
}
