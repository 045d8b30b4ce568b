/**
 * `npm run bench -- --memory-facts N`: every conversation starts with N remembered facts, as a user
 * who has kept that many would have (the newest that fit in memory.maxTokens go into the system
 * prompt), to measure what memory costs a turn. Made up, fixed, and varied enough that a tokenizer
 * sees ordinary sentences.
 */
import { MemoryBook } from '../memory/memory-book';

const PEOPLE = ['my sister Anna', 'my brother Tom', 'my friend Lucy', 'my dad', 'my mom', 'my colleague Peter', 'my neighbour Sarah', 'my son David'];
const FACTS = ['likes green tea', 'is allergic to nuts', 'lives in Lisbon', 'has a birthday on May 3rd', 'plays the piano on Sundays', 'drives a blue car', 'works at the hospital', 'hates cold weather'];
const MINE = ["I'm vegetarian", 'I go running at seven in the morning', 'my flight to Paris is on the 14th', 'I prefer metric units', 'my doctor is Dr. Rao', 'the wifi router is in the hallway'];

export function benchMemoryBook(n: number): MemoryBook {
  const book = new MemoryBook();
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < n; i++) {
    const text = i % 5 === 4 ? MINE[i % MINE.length]! : `${PEOPLE[i % PEOPLE.length]} ${FACTS[(i * 3 + Math.floor(i / 8)) % FACTS.length]}`;
    // Numbered past the first round, so every fact is its own.
    book.remember(i < 40 ? text : `${text} (${i})`, new Date(start + i * 86_400_000).toISOString());
  }
  return book;
}
