/**
 * Where a JSON text first goes wrong, as a person editing it looks for it: line and column (from
 * 1) and one sentence. JSON.parse says "position 34", or on Node 20 often no position at all.
 * Run only once JSON.parse has failed; null when this scanner finds nothing wrong.
 */
export interface JsonSyntaxError {
  line: number;
  column: number;
  message: string;
}

class Fail {
  constructor(
    readonly at: number,
    readonly message: string,
  ) {}
}

const LITERALS = ['true', 'false', 'null'];
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

function scan(text: string): void {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const end = (what: string) => new Fail(text.length, `the text ends before ${what}`);
  const string = () => {
    const open = i++;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') {
        ESCAPE.lastIndex = i;
        if (!ESCAPE.test(text)) throw new Fail(i, 'a backslash in a string must start an escape such as \\" or \\n');
        i = ESCAPE.lastIndex;
      } else if (c < ' ') throw new Fail(i, 'a string must close on the line it opens (a line break inside it is written \\n)');
      else i++;
    }
    throw new Fail(open, 'this string is never closed with "');
  };
  const value = (): void => {
    ws();
    if (i >= text.length) throw end('a value');
    const c = text[i]!;
    if (c === '{') return object();
    if (c === '[') return array();
    if (c === '"') return string();
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) {
      i = NUMBER.lastIndex;
      return;
    }
    const word = LITERALS.find((w) => text.startsWith(w, i));
    if (word) {
      i += word.length;
      return;
    }
    if (c === "'") throw new Fail(i, 'strings take double quotes ("), not single ones');
    throw new Fail(i, `expected a value (a string in double quotes, a number, true, false, null, { or [), found ${JSON.stringify(c)}`);
  };
  /** An object or a list: items between commas, up to `close` (a trailing comma is an error in JSON). */
  const items = (close: '}' | ']', item: () => void, after: string, what: string) => {
    i++;
    ws();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      ws();
      if (text[i] === close) throw new Fail(i, `a comma before '${close}' is not allowed`);
      item();
      ws();
      if (text[i] === ',') i++;
      else if (text[i] === close) {
        i++;
        return;
      } else throw i >= text.length ? end(`'${close}' closes the ${what}`) : new Fail(i, `expected ',' or '${close}' after ${after}`);
    }
  };
  const member = () => {
    if (i >= text.length) throw end("'}' closes the object");
    if (text[i] !== '"') throw new Fail(i, text[i] === "'" ? 'property names take double quotes ("), not single ones' : 'expected a property name in double quotes');
    string();
    ws();
    if (text[i] !== ':') throw i >= text.length ? end("the property's ':'") : new Fail(i, "expected ':' after the property name");
    i++;
    value();
  };
  const object = () => items('}', member, "the property's value", 'object');
  const array = () => items(']', value, "the list's item", 'list');
  value();
  ws();
  if (i < text.length) throw new Fail(i, 'more text after the JSON value has ended (one object only)');
}

export function jsonSyntaxError(text: string): JsonSyntaxError | null {
  try {
    scan(text);
    return null;
  } catch (e) {
    if (!(e instanceof Fail)) throw e;
    const before = text.slice(0, e.at);
    const line = before.split('\n').length;
    return { line, column: e.at - (before.lastIndexOf('\n') + 1) + 1, message: e.message };
  }
}
