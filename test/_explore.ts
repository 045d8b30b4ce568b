import { pickModel } from '../native-models/resolver';
import { LlamaEngine } from '../electron/engines/llm';
const m = await pickModel('llm', ['/work/shared/models']);
for (const cs of [128, 512]) {
const e = await LlamaEngine.load(m, { systemPrompt: 'You are a helpful assistant.', gpu: 'auto', gpuLayers: 'auto', contextSize: cs, threads: 1 });
console.log(e.info.contextSize, (e as any).model.trainContextSize);
let total = 0; const t0 = performance.now();
for (let i = 0; i < 15; i++) {
  let n = 0;
  try {
    const r = await e.generate(`Tell me story number ${i} about a cat and a dog.`, { maxTokens: 64, temperature: 0.8, onText: () => n++ });
    total += n; process.stdout.write(`${i}:${n}:${r.stopReason} `);
  } catch (err) { console.log('THROW', i, err); }
}
console.log('\ntotal chunks', total, performance.now() - t0, (e as any).session.getChatHistory().length, (e as any).session.sequence.contextTokens.length);
await e.dispose();
}
