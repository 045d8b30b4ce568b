/** A settings file's JSON mistake is said as an editor shows it: line, column and one sentence. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { jsonSyntaxError } from '../electron/settings/json-error';

const cases: [string, string, [number, number, RegExp]][] = [
  ['a missing comma', '{\n  "llm": {\n    "maxTokens": 48\n    "temperature": 0.2\n  }\n}', [4, 5, /^expected ',' or '\}' after the property's value$/]],
  ['a trailing comma in an object', '{\n  "mode": "one-shot",\n}', [3, 1, /^a comma before '\}' is not allowed$/]],
  ['a trailing comma in a list', '{"a": [1, 2,]}', [1, 13, /^a comma before '\]' is not allowed$/]],
  ['single quotes', "{'mode': 'one-shot'}", [1, 2, /double quotes/]],
  ['an unquoted name', '{mode: 1}', [1, 2, /^expected a property name in double quotes$/]],
  ['a misspelt literal', '{"a": ture}', [1, 7, /^expected a value .*found "t"$/]],
  ['cut short', '{"llm": {"maxTokens": ', [1, 23, /^the text ends before a value$/]],
  ['a string left open', '{"a": "x}', [1, 7, /never closed/]],
  ['two objects', '{"a": 1}\n{"b": 2}', [2, 1, /^more text after the JSON value/]],
];

for (const [name, text, [line, column, message]] of cases) {
  it(`${name}: line ${line}, column ${column}`, () => {
    assert.throws(() => JSON.parse(text));
    const e = jsonSyntaxError(text);
    assert.ok(e, 'found');
    assert.deepEqual([e.line, e.column], [line, column]);
    assert.match(e.message, message);
  });
}

it('valid JSON has no error', () => {
  assert.equal(jsonSyntaxError('{"a": [1, -2.5e3, true, null, "x\\n\\u00e9"], "b": {}}'), null);
});
