/**
 * Turns one piece of LLM output (markdown-ish text) into plain text a TTS
 * engine can read aloud. Pure: no I/O, no state.
 *
 * Choices:
 * - Fenced code blocks are dropped entirely; inline code keeps its content.
 * - Markdown links `[label](url)` become the label; bare URLs are spoken as
 *   their domain ("https://www.example.com/a?b" -> "example dot com"), because
 *   "a link" loses information and the full path is noise when heard.
 * - List numbers ("1.") and bullets at line start are dropped: each item is
 *   its own clause, so the pause already separates items.
 * - Stage directions (*laughs*, (sighs), [pause]) are removed. Every [...]
 *   that is not a link is removed (it is a direction or a citation like [1]);
 *   *...* and (...) are removed only when they look like a direction, since
 *   both are also used for emphasis and ordinary asides.
 */

// Verbs/nouns that mark a stage direction, with their inflections spelled out
// so that e.g. "nod" does not swallow "node".
const STAGE_CORE = String.raw`(?:laugh(?:s|ing|ed)?|chuckl(?:e|es|ed|ing)|giggl(?:e|es|ed|ing)|sigh(?:s|ing|ed)?|smil(?:e|es|ed|ing)|grin(?:s|ning|ned)?|paus(?:e|es|ed|ing)|cough(?:s|ing|ed)?|sniff(?:s|ing|les)?|gasp(?:s|ing|ed)?|wink(?:s|ing|ed)?|nod(?:s|ding|ded)?|shrug(?:s|ging|ged)?|whisper(?:s|ing|ed)?|yawn(?:s|ing|ed)?|smirk(?:s|ing|ed)?|beam(?:s|ing)?|blush(?:es|ing)?|groan(?:s|ing)?|sob(?:s|bing)?|snort(?:s|ing)?|exhal(?:e|es|ing)|inhal(?:e|es|ing)|clear(?:s|ing)?\s+(?:\p{L}+\s+)?throat|takes?\s+a\s+(?:deep\s+)?breath|deep\s+breath)`;
const STAGE_RE = new RegExp(
  String.raw`^(?:\p{L}+ly\s+)?(?:a\s+)?(?:(?:long|short|brief|soft|nervous|small|little|quiet)\s+)?${STAGE_CORE}(?:\s+[\p{L}'’-]+){0,5}[.!…]?$`,
  'iu',
);

export function isStageDirection(content: string): boolean {
  return STAGE_RE.test(content.trim());
}

const FENCE_LINE_RE = /^[ \t]*(`{3,}|~{3,})(.*)$/;

/** Handles everything that is only meaningful at the start of a line. */
function stripLineSyntax(text: string): string {
  const out: string[] = [];
  let fence: { ch: string; len: number } | null = null;
  for (const rawLine of text.split('\n')) {
    const fm = FENCE_LINE_RE.exec(rawLine);
    if (fence) {
      const marker = fm?.[1];
      if (marker && marker[0] === fence.ch && marker.length >= fence.len && fm[2]!.trim() === '') fence = null;
      continue;
    }
    if (fm) {
      fence = { ch: fm[1]![0]!, len: fm[1]!.length };
      continue;
    }
    let line = rawLine;
    if (/^\s*([-*_])(?:\s*\1){2,}\s*$/.test(line)) continue; // horizontal rule
    if (/^\s*=+\s*$/.test(line)) continue; // setext heading underline
    if (/^[\s|:-]+$/.test(line) && line.includes('-') && line.includes('|')) continue; // table separator
    line = line.replace(/^\s*(?:>\s?)+/, ''); // blockquote
    line = line.replace(/^\s*#{1,6}(?:\s+|$)/, ''); // heading
    line = line.replace(/^\s*(?:[-*+•▪‣◦]|\d{1,3}[.)])\s+/, ''); // bullet / number
    line = line.replace(/^\s*\[[ xX]\]\s+/, ''); // task-list box
    const t = line.trim();
    if (t.startsWith('|') || (t.endsWith('|') && t.indexOf('|') < t.length - 1)) {
      // Table row: read the cells as a list.
      line = t
        .split('|')
        .map((cell) => cell.trim())
        .filter((cell) => cell !== '')
        .join(', ');
    }
    out.push(line);
  }
  return out.join('\n');
}

/** "https://www.example.com/x" -> "example dot com". */
function speakUrl(url: string): string {
  const host = url
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .replace(/^[^@/]*@/, '')
    .split(/[/?#:]/)[0]!
    .replace(/^www\./i, '');
  const parts = host.split('.').filter((p) => p !== '');
  return parts.length > 0 ? parts.join(' dot ') : 'a link';
}

/** A URL match may swallow sentence punctuation; give it back. */
function replaceBareUrl(match: string): string {
  let url = match;
  let tail = '';
  while (/[.,;:!?'"’”)\]]$/.test(url)) {
    const last = url[url.length - 1]!;
    if (last === ')' && (url.match(/\(/g)?.length ?? 0) >= (url.match(/\)/g)?.length ?? 0)) break;
    tail = last + tail;
    url = url.slice(0, -1);
  }
  return speakUrl(url) + tail;
}

const ENTITIES: Record<string, string> = {
  nbsp: ' ',
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  '#39': "'",
};

const EMOJI_RE =
  /[\p{Extended_Pictographic}\p{Emoji_Modifier}\u{1F1E6}-\u{1F1FF}\u200D\uFE0E\uFE0F\u20E3\u{E0020}-\u{E007F}]/gu;

export function toSpeakable(text: string): string {
  let s = stripLineSyntax(text);

  // Inline code: keep the words, drop the ticks.
  s = s.replace(/(`+)([^`]+?)\1(?!`)/g, '$2').replace(/`+/g, '');

  // Links and images before URLs, so the label wins over the address.
  s = s.replace(
    /(!?)\[([^[\]\n]*)\]\(\s*([^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g,
    (_m, bang: string, label: string, url: string) => (label.trim() !== '' ? label : bang ? '' : speakUrl(url)),
  );
  s = s.replace(/\[([^[\]\n]+)\]\[[^[\]\n]*\]/g, '$1'); // reference-style link
  s = s.replace(/<((?:https?|ftp):\/\/[^\s<>]+)>/gi, (_m, url: string) => speakUrl(url));
  s = s.replace(/<([^\s<>@]+@[^\s<>@]+)>/g, '$1');
  s = s.replace(/\b(?:(?:https?|ftp):\/\/|www\.)[^\s<>"'`[\]]+/gi, replaceBareUrl);
  s = s.replace(
    /\b([\w.+-]+)@([a-z0-9-]+(?:\.[a-z0-9-]+)+)\b/gi,
    (_m, user: string, domain: string) => `${user.split('.').join(' dot ')} at ${domain.split('.').join(' dot ')}`,
  );
  // Bare domains with a common TLD; a short list avoids hitting file names.
  s = s.replace(
    /\b(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|ai|app|edu|gov|co|uk|de|fr|info|me)\b(?:\/[^\s<>"'`[\]]*)?/gi,
    replaceBareUrl,
  );

  // HTML: comments and tags go, a few entities are decoded.
  s = s.replace(/<!--[\s\S]*?(?:-->|$)/g, ' ');
  s = s.replace(/<\/?[a-z][a-z0-9-]*(?:\s[^<>]*)?\/?>/gi, ' ');
  s = s.replace(/&(nbsp|amp|lt|gt|quot|apos|#39);/g, (_m, e: string) => ENTITIES[e] ?? ' ');

  // Stage directions. Brackets left over after links are never prose.
  s = s.replace(/\[[^[\]\n]{0,80}\]/g, ' ');
  s = s.replace(/\(([^()\n]{1,80})\)/g, (m, inner: string) => (isStageDirection(inner) ? ' ' : m));
  s = s.replace(/(\*{1,2}|_{1,2})([^*_\n]{1,80}?)\1/g, (m, _d: string, inner: string) =>
    isStageDirection(inner) ? ' ' : m,
  );

  // Emphasis markers.
  s = s.replace(/\\(?=[\\`*_{}[\]()#+\-.!|~>])/g, ''); // markdown escapes
  s = s.replace(/~~/g, '');
  s = s.replace(/(\d)\s*[*×]\s*(?=\d)/g, '$1 times ');
  s = s.replace(/\*+/g, '');
  s = s.replace(/(?<=[\p{L}\p{N}])_+(?=[\p{L}\p{N}])/gu, ' '); // snake_case -> words
  s = s.replace(/_+/g, '');

  // Emoji, pictographs and their joiners / selectors / skin tones.
  s = s.replace(EMOJI_RE, '');
  s = s.replace(/(^|\s)(?::-?[)(DPp]|;-?\)|:'\(|<3)(?=\s|$)/g, '$1');

  // Symbols a TTS voice would misread or skip.
  s = s.replace(/°\s*C\b/g, ' degrees Celsius');
  s = s.replace(/°\s*F\b/g, ' degrees Fahrenheit');
  s = s.replace(/°/g, ' degrees');
  s = s.replace(/%/g, ' percent');
  s = s.replace(/±/g, ' plus or minus ');
  s = s.replace(/&/g, ' and ');
  s = s.replace(/~(?=\s?\d)/g, 'about ');
  s = s.replace(/~/g, ' ');
  s = s.replace(/#(?=\d)/g, 'number ');
  s = s.replace(/#/g, '');
  s = s.replace(/\s*(?:→|⇒|->|=>)\s*/g, ' to ');
  s = s.replace(/(\d)\s*–\s*(?=\d)/g, '$1 to ');
  s = s.replace(/\s*[—–]\s*/g, ', ');
  s = s.replace(/\s[•·]\s/g, ', ');
  s = s.replace(/[|(){}[\]\\]/g, ' ');

  // Tidy up what the removals left behind.
  s = s.replace(/\s+/g, ' ');
  s = s.replace(/\s+([,.;:!?…。，、！？])/g, '$1');
  s = s.replace(/([,;:])(?:\s*[,;:])+/g, '$1');
  s = s.replace(/^(?:[\s,;:]|[-–—.](?![\p{L}\p{N}]))+/u, '');
  s = s.trim();
  return /[\p{L}\p{N}]/u.test(s) ? s : '';
}
