/**
 * Local spoken commands (electron/commands/): phrasings -> intent and slots, near misses that
 * must go to the language model, number/duration/clock parsing, spoken replies, and the
 * short-word barge-in check. Pure and fast: no models, no I/O.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isShortCommand, matchCommand, normalizeCommand, type CommandName } from '../electron/commands/match';
import {
  numberToWords,
  ordinalWords,
  parseClockTime,
  parseDuration,
  parseNumber,
  spellClockTime,
  spellDuration,
  type ClockTime,
} from '../electron/commands/numbers';
import { alarmNotice, commandReply, timerDoneNotice } from '../electron/commands/respond';
import { COMMAND_NAMES, getGrammar } from '../electron/commands/sentences';
import { compileTemplate, TemplateError, templateSlots } from '../electron/commands/template';
import { applyRewrites, tokenize } from '../electron/commands/normalize';

const MIN = 60_000;
const HOUR = 60 * MIN;

type Slots = Record<string, string | number | boolean | null>;
/** [what the recognizer wrote, the command (null: not a command), slots that must be so] */
type Row = [string, CommandName | null, Slots?];

const TABLE: Row[] = [
  // timer.start: digits, words, mixed, names, casing, punctuation, fillers
  ['set a timer for 10 minutes', 'timer.start', { durationMs: 10 * MIN, name: null }],
  ['Set a timer for 10 minutes.', 'timer.start', { durationMs: 10 * MIN, name: null }],
  ['set a timer for ten minutes', 'timer.start', { durationMs: 10 * MIN }],
  ['SET A TIMER FOR TEN MINUTES!', 'timer.start', { durationMs: 10 * MIN }],
  ['Set a timer for 10 min', 'timer.start', { durationMs: 10 * MIN }],
  ['set timer to 5 minutes', 'timer.start', { durationMs: 5 * MIN }],
  ['Hey, can you set a timer for an hour and a half, please?', 'timer.start', { durationMs: 1.5 * HOUR }],
  ['set a timer for half an hour', 'timer.start', { durationMs: 30 * MIN }],
  ['set a timer for a minute and 30 seconds', 'timer.start', { durationMs: 90_000 }],
  ['timer for ninety seconds', 'timer.start', { durationMs: 90_000 }],
  ['set a timer for 1 hour 15 minutes', 'timer.start', { durationMs: HOUR + 15 * MIN }],
  ['set a timer for one hour and thirty minutes', 'timer.start', { durationMs: 1.5 * HOUR }],
  ['set a timer for two and a half hours', 'timer.start', { durationMs: 2.5 * HOUR }],
  ['set a timer for 1.5 hours', 'timer.start', { durationMs: 1.5 * HOUR }],
  ['set a timer for twenty-five minutes', 'timer.start', { durationMs: 25 * MIN }],
  ['set a timer for one hundred and twenty seconds', 'timer.start', { durationMs: 2 * MIN }],
  ['set a ten minute timer', 'timer.start', { durationMs: 10 * MIN, name: null }],
  ['start a 45 second timer', 'timer.start', { durationMs: 45_000 }],
  ['Timer, 3 minutes.', 'timer.start', { durationMs: 3 * MIN }],
  ['a quarter of an hour timer', 'timer.start', { durationMs: 15 * MIN }],
  ['a pasta timer for twenty minutes', 'timer.start', { durationMs: 20 * MIN, name: 'pasta' }],
  ['Set a 10-minute pasta timer', 'timer.start', { durationMs: 10 * MIN, name: 'pasta' }],
  ['set a timer for 10 minutes called pasta', 'timer.start', { durationMs: 10 * MIN, name: 'pasta' }],
  ['set a timer for 10 minutes for the pasta', 'timer.start', { durationMs: 10 * MIN, name: 'pasta' }],
  ['set a boiled eggs timer for 7 minutes', 'timer.start', { durationMs: 7 * MIN, name: 'boiled eggs' }],
  ['set a second timer for 5 minutes', 'timer.start', { durationMs: 5 * MIN, name: null }],
  ['okay set a timer for five minutes for me', 'timer.start', { durationMs: 5 * MIN, name: null }],
  // timer.cancel
  ['cancel the timer', 'timer.cancel', { name: null, all: false, durationMs: null }],
  ['stop the timer', 'timer.cancel', { name: null, all: false }],
  ['turn off the timer', 'timer.cancel', { name: null }],
  ['cancel the pasta timer', 'timer.cancel', { name: 'pasta', all: false }],
  ['Cancel the timer for pasta.', 'timer.cancel', { name: 'pasta' }],
  ['cancel the 10 minute timer', 'timer.cancel', { durationMs: 10 * MIN, name: null }],
  ['cancel all timers', 'timer.cancel', { all: true, name: null }],
  ['delete all of my timers', 'timer.cancel', { all: true }],
  // timer.status
  ['how much time is left', 'timer.status', { name: null }],
  ['How much time is left on my pasta timer?', 'timer.status', { name: 'pasta' }],
  ['how long left on the pasta timer', 'timer.status', { name: 'pasta' }],
  ['how long until the timer goes off', 'timer.status', { name: null }],
  ["what's left on the timer", 'timer.status', { name: null }],
  ['check the timer', 'timer.status', { name: null }],
  ['timer status', 'timer.status', { name: null }],
  // timer.add
  ['add five minutes to the timer', 'timer.add', { durationMs: 5 * MIN, name: null }],
  ['add 2 minutes to the pasta timer', 'timer.add', { durationMs: 2 * MIN, name: 'pasta' }],
  ['add three more minutes', 'timer.add', { durationMs: 3 * MIN }],
  ['add another minute', 'timer.add', { durationMs: MIN }],
  ['extend the timer by 30 seconds', 'timer.add', { durationMs: 30_000 }],
  // alarm.set
  ["set an alarm for seven o'clock", 'alarm.set', { hour: 7, minute: 0, ampm: null }],
  ['Set an alarm for 7 o clock.', 'alarm.set', { hour: 7, minute: 0, ampm: null }],
  ['wake me up at 7:30 am', 'alarm.set', { hour: 7, minute: 30, ampm: 'am' }],
  ['Wake me up at 7:30 a.m.', 'alarm.set', { hour: 7, minute: 30, ampm: 'am' }],
  ['set an alarm for six thirty', 'alarm.set', { hour: 6, minute: 30, ampm: null }],
  ['set an alarm for 7:30 PM.', 'alarm.set', { hour: 19, minute: 30, ampm: 'pm' }],
  ['set an alarm for 7 30 p m', 'alarm.set', { hour: 19, minute: 30, ampm: 'pm' }],
  ['set an alarm for 7pm', 'alarm.set', { hour: 19, minute: 0, ampm: 'pm' }],
  ['set an alarm for half past six', 'alarm.set', { hour: 6, minute: 30, ampm: null }],
  ['set an alarm for quarter to eight', 'alarm.set', { hour: 7, minute: 45, ampm: null }],
  ['set an alarm for noon', 'alarm.set', { hour: 12, minute: 0, ampm: 'pm' }],
  ['wake me up at seven in the morning', 'alarm.set', { hour: 7, minute: 0, ampm: 'am' }],
  ['set an alarm for 17:15', 'alarm.set', { hour: 17, minute: 15, ampm: 'pm' }],
  ['set an alarm for six oh five', 'alarm.set', { hour: 6, minute: 5, ampm: null }],
  // alarm.cancel
  ['cancel the alarm', 'alarm.cancel', { all: false, hour: null, minute: null, ampm: null }],
  ['turn off the alarm', 'alarm.cancel', { all: false }],
  ['cancel all alarms', 'alarm.cancel', { all: true }],
  ['cancel the alarm for 7 am', 'alarm.cancel', { hour: 7, minute: 0, ampm: 'am' }],
  // time.now
  ['what time is it', 'time.now', {}],
  ['What time is it?', 'time.now', {}],
  ["what's the time", 'time.now', {}],
  ['whats the time right now', 'time.now', {}],
  ['what is the time', 'time.now', {}],
  ['Could you please tell me what time it is?', 'time.now', {}],
  ['hey assistant what time is it', 'time.now', {}],
  // date.today
  ['what day is it today', 'date.today', {}],
  ['What day is today?', 'date.today', {}],
  ["what's the date", 'date.today', {}],
  ["what is today's date", 'date.today', {}],
  ['whats todays date', 'date.today', {}],
  ['tell me the date', 'date.today', {}],
  // stop, repeat, reset, pause, resume
  ['stop', 'stop', {}],
  ['Stop!', 'stop', {}],
  ['okay stop', 'stop', {}],
  ['stop it', 'stop', {}],
  ['hey, stop talking', 'stop', {}],
  ['never mind', 'stop', {}],
  ['Nevermind.', 'stop', {}],
  ['cancel', 'stop', {}],
  ['cancel that', 'stop', {}],
  ['be quiet', 'stop', {}],
  ['shut up', 'stop', {}],
  ["that's enough", 'stop', {}],
  ['repeat that', 'repeat', {}],
  ['say that again', 'repeat', {}],
  ['what did you say', 'repeat', {}],
  ['Sorry, what did you say?', 'repeat', {}],
  ["I didn't catch that", 'repeat', {}],
  ['new conversation', 'conversation.reset', {}],
  ['start over', 'conversation.reset', {}],
  ["let's start over", 'conversation.reset', {}],
  ['forget everything we said', 'conversation.reset', {}],
  ['Remember that my sister is called Anna.', 'remember', { text: 'my sister is called anna' }],
  ["Don't forget that I'm vegetarian", 'remember', { text: 'i am vegetarian' }],
  ['keep in mind the trip is in may please', 'remember', { text: 'the trip is in may' }],
  ['forget what I said about my sister', 'forget', { all: false, text: 'my sister' }],
  ['forget that my sister is called anna', 'forget', { all: false, text: 'my sister is called anna' }],
  ['forget everything', 'forget', { all: true, text: null }],
  ['clear your memory', 'forget', { all: true, text: null }],
  ['what do you remember about me', 'recall', {}],
  ['what do you know about me', 'recall', {}],
  ['what did we talk about yesterday', 'history.search', { text: 'yesterday' }],
  ['what did I say about the trip?', 'history.search', { text: 'the trip' }],
  ['what were we talking about', 'history.search', { text: null }],
  // The same in the test recognizers' words ("remember" and "forget" are not among them)
  ['add the fact that my sister is ana', 'remember', { text: 'my sister is ana' }],
  ['cancel the fact about my sister', 'forget', { all: false, text: 'my sister' }],
  ['cancel the facts', 'forget', { all: true, text: null }],
  ['tell me the facts', 'recall', {}],
  ['list the facts you know about me', 'recall', {}],
  ['pause', 'pause', {}],
  ['please pause', 'pause', {}],
  ['hold on', 'pause', {}],
  ['resume', 'resume', {}],
  ['continue', 'resume', {}],
  ['go on', 'resume', {}],
  ['carry on please', 'resume', {}],
  // The test recognizers' words only (lowercase, no digits, "hours"/"minutes"/"seconds" plural)
  ['set a timer for fifteen minutes', 'timer.start', { durationMs: 15 * MIN }],
  ['set a timer for one hours and thirty minutes', 'timer.start', { durationMs: 1.5 * HOUR }],
  ['set a pasta timer for twenty minutes', 'timer.start', { durationMs: 20 * MIN, name: 'pasta' }],
  ['set an alarm for six thirty p m', 'alarm.set', { hour: 18, minute: 30, ampm: 'pm' }],
  ['set an alarm for seven am', 'alarm.set', { hour: 7, minute: 0, ampm: 'am' }],
  ['okay cancel the timer please', 'timer.cancel', { name: null }],
  // Near misses: not the whole utterance, or not a command at all -> the language model
  ['tell me a story about a timer', null],
  ['how do timers work', null],
  ['what time is it in berlin', null],
  ['What time is it in Tokyo right now?', null],
  ['what is the time in tokyo', null],
  ['what is the date in tokyo', null],
  ["what's the weather today", null],
  ['stop the war in my novel', null],
  ['pause the music', null],
  ['continue the story', null],
  ['add eggs to the shopping list', null],
  ['set a timer', null],
  ['set a timer for 10', null],
  ['set a timer for 1:30', null],
  ['set a timer for zero minutes', null],
  ['set a timer for 5 minutes 2 hours', null],
  ['set a time for ten minutes', null],
  ['set an alarm for ten minutes', null],
  ['set an alarm for seven five', null],
  ['set an alarm for 6:15 tomorrow', null],
  ['why do we stop at red lights', null],
  ['can you repeat the story about the dragon', null],
  ['please', null],
  ['okay', null],
  ['', null],
  ['what is a timer', null],
  ['how long is the river nile', null],
];

describe('matchCommand: phrasings -> command and slots', () => {
  // The table below is the test: what it must cover is every command, and sentences that are none.
  it('has phrasings of every command, and of sentences that are no command', () => {
    const covered = new Set(TABLE.map((r) => r[1]));
    assert.deepEqual(COMMAND_NAMES.filter((n) => !covered.has(n)), [], 'commands with no phrasing in the table');
    assert.ok(covered.has(null), 'no sentence that must fall through to the model');
  });
  for (const [text, name, slots] of TABLE) {
    it(`${JSON.stringify(text)} -> ${name ?? 'no command'}`, () => {
      const m = matchCommand(text);
      assert.equal(m?.name ?? null, name, `tokens: ${JSON.stringify(normalizeCommand(text))}`);
      if (m && slots) for (const [k, v] of Object.entries(slots)) assert.deepEqual(m.slots[k], v, `slot ${k}`);
    });
  }

  it('always gives every slot of the intent, typed', () => {
    assert.deepEqual(matchCommand('cancel the timer')?.slots, { name: null, all: false, durationMs: null });
    assert.deepEqual(matchCommand('set a timer for 10 minutes')?.slots, { name: null, durationMs: 600_000 });
    assert.deepEqual(matchCommand('set an alarm for seven')?.slots, { hour: 7, minute: 0, ampm: null });
    assert.deepEqual(matchCommand('cancel all alarms')?.slots, { all: true, hour: null, minute: null, ampm: null });
    assert.deepEqual(matchCommand('what time is it')?.slots, {});
  });

  it('gives up on long utterances without trying every template', () => {
    assert.equal(matchCommand('set a timer for ten minutes '.repeat(10)), null);
  });
});

describe('normalization', () => {
  it('lowercases, strips punctuation, keeps 7:30, 1.5 and inner apostrophes, splits 7pm', () => {
    assert.deepEqual(tokenize("What's the time? It's 7:30pm, o'clock-ish; 1.5 hours, 1,000!"), [
      "what's", 'the', 'time', "it's", '7:30', 'pm', "o'clock", 'ish', '1.5', 'hours', '1000',
    ]);
    assert.deepEqual(tokenize('\u2018Twenty\u2011five\u2019 \u201cmin\u201d'), ['twenty', 'five', 'min']);
  });
  it('rewrites contractions and a.m./p.m.', () => {
    const g = getGrammar('en');
    assert.deepEqual(applyRewrites(tokenize('whats up at 7 p.m. or 8 a.m. o clock'), g.rewrites), [
      'what', 'is', 'up', 'at', '7', 'pm', 'or', '8', 'am', "o'clock",
    ]);
  });
  it('drops fillers at both ends, never the last word', () => {
    assert.deepEqual(normalizeCommand('Hey, okay, could you please stop for me, thanks'), ['stop']);
    assert.deepEqual(normalizeCommand('please'), ['please']);
    assert.deepEqual(normalizeCommand('can you'), ['can', 'you']);
  });
});

describe('isShortCommand: one short interrupting word', () => {
  const cases: Array<[string, 'stop' | 'pause' | 'cancel' | null]> = [
    ['stop', 'stop'],
    ['Stop.', 'stop'],
    ['STOP!', 'stop'],
    ['okay stop', 'stop'],
    ['hey stop please', 'stop'],
    ['no, stop', 'stop'],
    ['stop stop', 'stop'],
    ['pause', 'pause'],
    ['please pause', 'pause'],
    ['cancel', 'cancel'],
    ['okay, cancel', 'cancel'],
    ['stop the war in my novel', null],
    ['stop it', null],
    ['stop pause', null],
    ['stopping', null],
    ['okay', null],
    ['', null],
    ['the', null],
    ['what time is it', null],
    // Misheard by a letter over the answer's echo (the stand-in recognizer's spellings of "stop").
    ['storp', 'stop'],
    ['stap', 'stop'],
    ['wstop', 'stop'],
    ['stor stop', 'stop'],
    ['pase', 'pause'],
    ['cancl', 'cancel'],
    // One letter off as it sounds: a silent "r" after a vowel, a doubled letter.
    ['starp', 'stop'],
    ['starpp', 'stop'],
    ['stopp', 'stop'],
    // A lone letter is the recognizer's fragment of the echo's remains, not a word.
    ['stop f', 'stop'],
    ['f', null],
    // Two letters off even as they sound, or too short to tell.
    ['tarp', null],
    ['start', null],
    ['star', null],
    ['sharp', null],
    ['strap', null],
    ['paws', null],
    ['to', null],
    ['ap', null],
    ['storp it', null],
  ];
  for (const [text, want] of cases) it(`${JSON.stringify(text)} -> ${want}`, () => assert.equal(isShortCommand(text), want));
});

describe('numbers', () => {
  it('reads number words and digits', () => {
    const rows: Array<[string, number | null]> = [
      ['zero', 0], ['seven', 7], ['nineteen', 19], ['twenty', 20], ['twenty five', 25], ['ninety nine', 99],
      ['hundred', 100], ['a hundred', 100], ['one hundred and twenty', 120], ['two hundred five', 205],
      ['a', 1], ['an', 1], ['half', 0.5], ['a half', 0.5], ['10', 10], ['1.5', 1.5],
      ['twenty twenty', null], ['five twenty', null], ['ten five', null], ['pasta', null], ['', null], ['one hundred zero', null],
    ];
    for (const [text, want] of rows) assert.equal(parseNumber(text ? text.split(' ') : []), want, text);
  });
  it('spells numbers and ordinals', () => {
    const rows: Array<[number, string]> = [[0, 'zero'], [7, 'seven'], [15, 'fifteen'], [42, 'forty two'], [90, 'ninety'], [100, 'one hundred'], [125, 'one hundred twenty five'], [2026, 'two thousand twenty six']];
    for (const [n, want] of rows) assert.equal(numberToWords(n), want);
    const ords: Array<[number, string]> = [[1, 'first'], [2, 'second'], [3, 'third'], [5, 'fifth'], [8, 'eighth'], [9, 'ninth'], [12, 'twelfth'], [20, 'twentieth'], [21, 'twenty first'], [30, 'thirtieth'], [31, 'thirty first']];
    for (const [n, want] of ords) assert.equal(ordinalWords(n), want);
  });
});

describe('parseDuration', () => {
  const rows: Array<[string, number | null]> = [
    ['10 minutes', 10 * MIN], ['ten minutes', 10 * MIN], ['one minute', MIN], ['1 minutes', MIN], ['a minute', MIN],
    ['an hour', HOUR], ['an hour and a half', 1.5 * HOUR], ['a minute and a half', 90_000], ['half an hour', 30 * MIN],
    ['half a minute', 30_000], ['a half hour', 30 * MIN], ['a quarter of an hour', 15 * MIN], ['three quarters of an hour', 45 * MIN],
    ['ninety seconds', 90_000], ['90 seconds', 90_000], ['a minute and 30 seconds', 90_000],
    ['1 hour 15 minutes', 75 * MIN], ['1 hour and 30 minutes', 90 * MIN], ['one hour thirty minutes and ten seconds', 90 * MIN + 10_000],
    ['two and a half hours', 2.5 * HOUR], ['1.5 hours', 1.5 * HOUR], ['10 min', 10 * MIN], ['2 hrs', 2 * HOUR], ['30 secs', 30_000],
    ['five more minutes', 5 * MIN], ['twenty five minutes', 25 * MIN], ['one hundred and twenty seconds', 120_000],
    ['10', null], ['minutes', null], ['ten', null], ['0 minutes', null], ['5 minutes 2 hours', null], ['5 minutes 5 minutes', null],
    ['1:30', null], ['ten minutes pasta', null], ['and ten minutes', null], ['an hour and a half and', null], ['', null],
  ];
  for (const [text, want] of rows) {
    it(`${JSON.stringify(text)} -> ${want}`, () => assert.equal(parseDuration(text ? text.split(' ') : []), want));
  }
});

describe('parseClockTime', () => {
  const t = (hour: number, minute: number, ampm: ClockTime['ampm']): ClockTime => ({ hour, minute, ampm });
  const rows: Array<[string, ClockTime | null]> = [
    ['seven', t(7, 0, null)], ["seven o'clock", t(7, 0, null)], ['seven thirty', t(7, 30, null)], ['six fifteen', t(6, 15, null)],
    ['seven thirty five', t(7, 35, null)], ['six oh five', t(6, 5, null)], ['7', t(7, 0, null)], ['7:30', t(7, 30, null)],
    ['7:30 pm', t(19, 30, 'pm')], ['7 30 pm', t(19, 30, 'pm')], ['7.30 am', t(7, 30, 'am')], ['7 pm', t(19, 0, 'pm')],
    ["seven o'clock pm", t(19, 0, 'pm')], ['12 am', t(0, 0, 'am')], ['12 pm', t(12, 0, 'pm')], ['12:30', t(12, 30, null)],
    ['0730', t(7, 30, null)], ['1730', t(17, 30, 'pm')], ['17:30', t(17, 30, 'pm')], ['0:15', t(0, 15, 'am')],
    ['twenty one fifteen', t(21, 15, 'pm')], ['noon', t(12, 0, 'pm')], ['midnight', t(0, 0, 'am')],
    ['half past six', t(6, 30, null)], ['quarter past six', t(6, 15, null)], ['quarter to eight', t(7, 45, null)],
    ['a quarter to eight', t(7, 45, null)], ['ten to one', t(12, 50, null)], ['twenty minutes past nine', t(9, 20, null)],
    ['quarter to eight pm', t(19, 45, 'pm')], ['quarter to one pm', t(12, 45, 'pm')], ['ten past nine in the morning', t(9, 10, 'am')],
    ['seven in the evening', t(19, 0, 'pm')],
    ['seven five', null], ['13 pm', null], ['0 am', null], ['7:75', null], ['25:00', null], ["seven thirty o'clock", null],
    ['noon pm', null], ['half to seven', null], ['pm', null], ['pasta', null], ['', null],
  ];
  for (const [text, want] of rows) {
    it(`${JSON.stringify(text)} -> ${JSON.stringify(want)}`, () => assert.deepEqual(parseClockTime(text ? text.split(' ') : []), want));
  }
});

describe('spelling for speech', () => {
  it('spells durations', () => {
    const rows: Array<[number, string]> = [
      [10 * MIN, 'ten minutes'], [MIN, 'one minute'], [90 * MIN, 'one hour and thirty minutes'], [90_000, 'one minute and thirty seconds'],
      [2 * HOUR + 5 * MIN + 1000, 'two hours, five minutes and one second'], [45_000, 'forty five seconds'], [HOUR, 'one hour'],
      [0, 'zero seconds'], [300, 'one second'], [59_600, 'one minute'],
    ];
    for (const [ms, want] of rows) assert.equal(spellDuration(ms), want, String(ms));
  });
  it('spells clock times', () => {
    const rows: Array<[number, number, boolean, string]> = [
      [19, 30, true, 'seven thirty p.m.'], [7, 30, true, 'seven thirty a.m.'], [7, 0, true, 'seven a.m.'], [6, 5, true, 'six oh five a.m.'],
      [12, 0, true, 'noon'], [0, 0, true, 'midnight'], [0, 15, true, 'twelve fifteen a.m.'], [12, 45, true, 'twelve forty five p.m.'],
      [19, 0, false, "seven o'clock"], [7, 30, false, 'seven thirty'], [12, 0, false, "twelve o'clock"],
    ];
    for (const [h, m, ampm, want] of rows) assert.equal(spellClockTime(h, m, ampm), want);
  });
});

describe('commandReply', () => {
  const reply = (text: string, ctx?: Parameters<typeof commandReply>[1]) => {
    const m = matchCommand(text);
    assert.ok(m, text);
    return commandReply(m, ctx);
  };
  // Tuesday, December 1, 2026, 19:30 local
  const now = { year: 2026, month: 12, day: 1, weekday: 2, hour: 19, minute: 30 };

  it('confirms timers', () => {
    assert.equal(reply('set a timer for 10 minutes'), 'Timer set for ten minutes.');
    assert.equal(reply('set a pasta timer for twenty minutes'), 'Your pasta timer is set for twenty minutes.');
    assert.equal(reply('set a timer for an hour and a half'), 'Timer set for one hour and thirty minutes.');
  });
  it('tells the time and the date, in words', () => {
    assert.equal(reply('what time is it', { now }), "It's seven thirty p.m.");
    assert.equal(reply('what time is it', { now: new Date(2026, 0, 5, 6, 5) }), "It's six oh five a.m.");
    assert.equal(reply('what day is it today', { now }), 'Today is Tuesday, December first.');
    assert.equal(reply("what's the date", { now: new Date(2026, 0, 22, 9, 0) }), 'Today is Thursday, January twenty second.');
  });
  it('words timer status from the timers the caller found', () => {
    assert.equal(reply('how much time is left'), 'There is no timer running.');
    assert.equal(reply('how much time is left', { timers: [] }), 'There is no timer running.');
    assert.equal(reply('how long left on the pasta timer', { timers: [] }), 'There is no pasta timer.');
    assert.equal(reply('how much time is left', { timers: [{ name: null, remainingMs: 4 * MIN + 11_200 }] }), 'Four minutes and twelve seconds left.');
    assert.equal(reply('how long left on the pasta timer', { timers: [{ name: 'pasta', remainingMs: 20 * MIN + 20_000 }] }), 'Twenty minutes left on your pasta timer.');
    assert.equal(
      reply('how much time is left', { timers: [{ name: 'pasta', remainingMs: 4 * MIN }, { name: null, remainingMs: 10_000 }] }),
      'You have two timers: the pasta timer with four minutes left and a timer with ten seconds left.',
    );
  });
  it('words cancel and add', () => {
    assert.equal(reply('cancel the timer', { timers: [{ name: null, remainingMs: 1000 }] }), 'Timer canceled.');
    assert.equal(reply('cancel the pasta timer', { timers: [{ name: 'pasta', remainingMs: 1000 }] }), 'Your pasta timer is canceled.');
    assert.equal(reply('cancel the pasta timer', { timers: [] }), 'There is no pasta timer.');
    assert.equal(reply('cancel all timers', { timers: [{ name: null, remainingMs: 1 }, { name: 'a', remainingMs: 1 }, { name: 'b', remainingMs: 1 }] }), 'Three timers canceled.');
    assert.equal(reply('cancel all timers', { timers: [] }), 'There is no timer running.');
    assert.equal(reply('add five minutes to the timer', { timers: [{ name: null, remainingMs: 9 * MIN + 30_000 }] }), 'Added five minutes. Nine minutes and thirty seconds left.');
    assert.equal(reply('add 2 minutes to the pasta timer', { timers: [{ name: 'pasta', remainingMs: 12 * MIN }] }), 'Added two minutes to your pasta timer. Twelve minutes left.');
    assert.equal(reply('add five minutes', { timers: [] }), 'There is no timer running.');
  });
  it('words alarms', () => {
    assert.equal(reply('wake me up at 7:30 am'), 'Alarm set for seven thirty a.m.');
    assert.equal(reply('set an alarm for six thirty'), 'Alarm set for six thirty.');
    assert.equal(reply("set an alarm for seven o'clock"), "Alarm set for seven o'clock.");
    assert.equal(reply('set an alarm for six thirty', { alarms: [{ hour: 18, minute: 30, ampm: 'pm' }] }), 'Alarm set for six thirty p.m.');
    assert.equal(reply('cancel the alarm', { alarms: [] }), 'There is no alarm set.');
    assert.equal(reply('cancel the alarm', { alarms: [{ hour: 7, minute: 0, ampm: 'am' }] }), 'Canceled your alarm for seven a.m.');
    assert.equal(reply('cancel all alarms', { alarms: [{ hour: 7, minute: 0, ampm: 'am' }, { hour: 8, minute: 0, ampm: null }] }), 'Two alarms canceled.');
  });
  it('repeats, resets, and says nothing for stop, pause and resume', () => {
    assert.equal(reply('say that again', { lastReply: 'Paris is the capital of France.' }), 'Paris is the capital of France.');
    assert.equal(reply('say that again'), "I haven't said anything yet.");
    assert.equal(reply('start over'), "Okay, let's start over.");
    assert.equal(reply('stop'), '');
    assert.equal(reply('pause'), '');
    assert.equal(reply('continue'), '');
  });
  it('notices when a timer or an alarm rings', () => {
    assert.equal(timerDoneNotice('pasta'), 'Your pasta timer is done.');
    assert.equal(timerDoneNotice(null), 'Your timer is done.');
    assert.equal(alarmNotice(7, 0), "It's seven o'clock: your alarm.");
    assert.equal(alarmNotice(19, 30), "It's seven thirty: your alarm.");
  });
});

describe('the sentence data', () => {
  const g = getGrammar('en');
  it('has sentences and a response for every command', () => {
    assert.deepEqual(g.intents.map((i) => i.name).sort(), [...COMMAND_NAMES].sort());
    for (const i of g.intents) assert.ok(i.sentences.length > 0, i.name);
    for (const name of [...COMMAND_NAMES, 'timer.done', 'alarm.ring']) assert.ok(g.data.responses[name], name);
  });
  it('writes template words in normalized form (else they could never match)', () => {
    const rewritten = new Set(g.rewrites.filter((r) => r.from.length === 1).map((r) => r.from[0]));
    for (const i of g.intents) {
      for (const s of i.sentences) {
        for (const w of s.template.source.replace(/<\w+>|\{\w+\}|[[\]()|]/g, ' ').split(/\s+/).filter(Boolean)) {
          assert.deepEqual(tokenize(w), [w], `${w} in "${s.template.source}"`);
          assert.ok(!rewritten.has(w), `${w} is rewritten, in "${s.template.source}"`);
        }
      }
    }
  });
  it('gives every match of an intent the same slots', () => {
    const slotKeys = { duration: ['durationMs'], time: ['hour', 'minute', 'ampm'], name: ['name'], text: ['text'] };
    for (const i of g.intents) {
      const keysOf = (s: (typeof i.sentences)[number]) =>
        [...new Set([...Object.keys(i.defaults), ...Object.keys(s.set), ...templateSlots(s.template).flatMap((t) => slotKeys[t])])].sort();
      const all = [...new Set(i.sentences.flatMap(keysOf))].sort();
      for (const s of i.sentences) assert.deepEqual(keysOf(s), all, `${i.name}: "${s.template.source}"`);
    }
  });
  it('rejects bad templates', () => {
    for (const bad of ['set [a timer', 'set a) timer', '{nope}', '<nope>', 'a [|b]', '{duration} and {duration}', '<x>']) {
      assert.throws(() => compileTemplate(bad, { x: 'a <x>' }), TemplateError, bad);
    }
  });
});
