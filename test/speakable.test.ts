import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toSpeakable, isStageDirection } from '../electron/text/speakable';

test('removes emphasis markers and keeps inline code words', () => {
  assert.equal(toSpeakable('**Sure!** Here is _one_ and ~~two~~.'), 'Sure! Here is one and two.');
  assert.equal(toSpeakable('Run `npm install` first.'), 'Run npm install first.');
  assert.equal(toSpeakable('__Bold__ and *italic*'), 'Bold and italic');
  assert.equal(toSpeakable('my_var_name'), 'my var name');
});

test('drops line-start markdown: headings, bullets, numbers, quotes, rules', () => {
  assert.equal(toSpeakable('## Getting started'), 'Getting started');
  assert.equal(toSpeakable('- first item'), 'first item');
  assert.equal(toSpeakable('* second item'), 'second item');
  assert.equal(toSpeakable('1. Preheat the oven.'), 'Preheat the oven.');
  assert.equal(toSpeakable('> quoted text'), 'quoted text');
  assert.equal(toSpeakable('- [x] done task'), 'done task');
  assert.equal(toSpeakable('---'), '');
  assert.equal(toSpeakable('-5 degrees'), '-5 degrees');
});

test('tables read as comma-separated cells', () => {
  assert.equal(toSpeakable('| Name | Age |'), 'Name, Age');
  assert.equal(toSpeakable('|---|:---:|'), '');
});

test('fenced code is dropped, surrounding text kept', () => {
  assert.equal(toSpeakable('Look:\n```js\nconst a = 1;\n```\nDone.'), 'Look: Done.');
  assert.equal(toSpeakable('```\nunterminated code'), '');
});

test('links become labels, URLs become spoken domains', () => {
  assert.equal(toSpeakable('See [the docs](https://example.com/docs?a=1).'), 'See the docs.');
  assert.equal(toSpeakable('Go to https://www.github.com/foo/bar.'), 'Go to github dot com.');
  assert.equal(toSpeakable('Open <https://example.org/x>'), 'Open example dot org');
  assert.equal(toSpeakable('Visit github.com/x/y, today'), 'Visit github dot com, today');
  assert.equal(toSpeakable('Mail john.doe@example.org'), 'Mail john dot doe at example dot org');
  assert.equal(toSpeakable('![a diagram](pic.png)'), 'a diagram');
  // File names are not domains.
  assert.equal(toSpeakable('Edit README.md in Node.js'), 'Edit README.md in Node.js');
  assert.doesNotMatch(toSpeakable('Read https://a.example.com/path?q=1#frag now'), /https|\/|\?|#/);
});

test('emoji and pictographs are removed, including ZWJ sequences and modifiers', () => {
  assert.equal(toSpeakable('Great job! 🎉👍🏽 👨‍👩‍👧 🇺🇸 ❤️'), 'Great job!');
  assert.equal(toSpeakable('🎉'), '');
  assert.equal(toSpeakable('nice :) work'), 'nice work');
});

test('stage directions are removed, ordinary asides kept', () => {
  assert.equal(toSpeakable('*laughs* That is funny.'), 'That is funny.');
  assert.equal(toSpeakable('(sighs) Okay then.'), 'Okay then.');
  assert.equal(toSpeakable('Well [pause] maybe.'), 'Well maybe.');
  assert.equal(toSpeakable('*smiles warmly* Hello.'), 'Hello.');
  assert.equal(toSpeakable('(a long pause) Fine.'), 'Fine.');
  assert.equal(toSpeakable('_clears throat_ Listen.'), 'Listen.');
  assert.equal(toSpeakable('As shown [1], it works.'), 'As shown, it works.');
  assert.equal(toSpeakable('*laughs*'), '');
  assert.equal(toSpeakable('Use the (optional) flag.'), 'Use the optional flag.');
  assert.equal(toSpeakable('This is *really* good.'), 'This is really good.');
  assert.equal(isStageDirection('node'), false);
  assert.equal(isStageDirection('nods'), true);
});

test('HTML tags and entities', () => {
  assert.equal(toSpeakable('<b>bold</b> text<br/>more'), 'bold text more');
  assert.equal(toSpeakable('Salt &amp; pepper'), 'Salt and pepper');
  assert.equal(toSpeakable('<!-- hidden --> shown'), 'shown');
});

test('symbols made speakable', () => {
  assert.equal(toSpeakable('50% off'), '50 percent off');
  assert.equal(toSpeakable('It is 20°C outside'), 'It is 20 degrees Celsius outside');
  assert.equal(toSpeakable('About 70°F'), 'About 70 degrees Fahrenheit');
  assert.equal(toSpeakable('Tom & Jerry'), 'Tom and Jerry');
  assert.equal(toSpeakable('Pages 5–10'), 'Pages 5 to 10');
  assert.equal(toSpeakable('wait—what'), 'wait, what');
  assert.equal(toSpeakable('~10 items'), 'about 10 items');
  assert.equal(toSpeakable('#1 pick'), 'number 1 pick');
  assert.equal(toSpeakable('3 * 4 = 12'), '3 times 4 = 12');
});

test('whitespace collapsed; nothing speakable gives empty string', () => {
  assert.equal(toSpeakable('  lots   of\n\n space  '), 'lots of space');
  assert.equal(toSpeakable(''), '');
  assert.equal(toSpeakable('   '), '');
  assert.equal(toSpeakable('** __ ~~'), '');
  assert.equal(toSpeakable('...'), '');
  assert.equal(toSpeakable('Hello , world .'), 'Hello, world.');
});
