/**
 * Words around memory, pure: a fact said back to the user ("my sister" -> "your sister"), and when
 * a question about earlier conversations points to ("yesterday", "last week").
 */

const SECOND_PERSON: Record<string, string> = {
  i: 'you',
  me: 'you',
  my: 'your',
  mine: 'yours',
  myself: 'yourself',
  "i'm": "you're",
  "i've": "you've",
  "i'd": "you'd",
  "i'll": "you'll",
  am: 'are',
};

/** "my sister is called anna" -> "your sister is called anna"; "i am vegetarian" -> "you are vegetarian". */
export function toSecondPerson(text: string): string {
  const parts = text.split(/(\s+)/);
  let afterI = false;
  return parts
    .map((p) => {
      if (/^\s+$/.test(p)) return p;
      const bare = p.toLowerCase().replace(/[.,!?;:]+$/, '');
      const tail = p.slice(bare.length);
      // "am" only after "I": "I am" -> "you are", while "7 am" stays.
      const mapped = bare === 'am' && !afterI ? undefined : SECOND_PERSON[bare];
      // "I was" -> "you were".
      const was = afterI && bare === 'was' ? 'were' : undefined;
      afterI = bare === 'i';
      return (was ?? mapped ?? p.slice(0, bare.length)) + tail;
    })
    .join('');
}

export interface When {
  /** The words left when the time words are taken out. */
  rest: string;
  /** Epoch ms range, start inclusive, end exclusive. */
  fromMs: number;
  toMs: number;
  /** As said back: "yesterday". */
  label: string;
}

const DAY = 86_400_000;

/** The time a question points to, on the local calendar of `now`; null when it names none. */
export function parseWhen(text: string, now: Date): When | null {
  const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  const day = (back: number) => ({ fromMs: midnight - back * DAY, toMs: midnight - (back - 1) * DAY });
  const forms: Array<{ re: RegExp; label: string; range: () => { fromMs: number; toMs: number } }> = [
    { re: /\b(?:the )?day before yesterday\b/, label: 'the day before yesterday', range: () => day(2) },
    { re: /\b(?:yesterday|last night)\b/, label: 'yesterday', range: () => day(1) },
    { re: /\b(?:today|this morning|this afternoon|this evening|tonight)\b/, label: 'today', range: () => day(0) },
    { re: /\b(?:last|this past) week\b/, label: 'in the last week', range: () => ({ fromMs: midnight - 7 * DAY, toMs: midnight + DAY }) },
    { re: /\bthis week\b/, label: 'this week', range: () => ({ fromMs: midnight - ((now.getDay() + 6) % 7) * DAY, toMs: midnight + DAY }) },
  ];
  const lower = text.toLowerCase();
  for (const f of forms) {
    const m = f.re.exec(lower);
    if (m) return { rest: `${lower.slice(0, m.index)} ${lower.slice(m.index + m[0].length)}`.replace(/\s+/g, ' ').trim(), label: f.label, ...f.range() };
  }
  return null;
}
