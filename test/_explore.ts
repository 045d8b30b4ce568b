import { pickModel } from '../native-models/resolver';
import { StreamingRecognizer, OfflineSegmentRecognizer } from '../electron/engines/stt';
import { readWavFile } from '../electron/audio/wav';
import { toMono16k, resample } from '../electron/audio/resample';
const SP = '/work/shared/speech/';
const sm = await pickModel('stt', ['/work/shared/models']);
const om = await pickModel('stt', ['/work/shared/models'], 'test-stt-espeak-ctc');
const s = StreamingRecognizer.load(sm);
const o = await OfflineSegmentRecognizer.load(om, () => 300);
async function both(label: string, a: Float32Array) {
  const ss = s.createSession(() => {});
  for (let i = 0; i < a.length; i += 512) ss.accept(a.slice(i, i + 512));
  const os = o.createSession(() => {});
  os.accept(a);
  console.log(label, JSON.stringify(await ss.finish()), '|', JSON.stringify(await os.finish()));
}
const w = toMono16k(await readWavFile(SP + 'weather.wav'));
const w8 = toMono16k(await readWavFile(SP + 'weather_8k.wav'));
const rt = resample(resample(w, 16000, 8000), 8000, 16000);
let num = 0, den = 0, pk = 0, pk8 = 0;
for (let i = 0; i < Math.min(rt.length, w8.length); i++) { num += (rt[i]! - w8[i]!) ** 2; den += rt[i]! ** 2; pk = Math.max(pk, Math.abs(w[i]!)); pk8 = Math.max(pk8, Math.abs(w8[i]!)); }
console.log('len', w.length, w8.length, rt.length, 'rel err of roundtrip vs 8k file', Math.sqrt(num / den), 'peaks', pk, pk8);
await both('weather', w);
await both('8k file', w8);
await both('16k->8k->16k roundtrip', rt);
await both('silence', toMono16k(await readWavFile(SP + 'silence.wav')));
await both('noise', toMono16k(await readWavFile(SP + 'noise.wav')));
const st = toMono16k(await readWavFile(SP + 'story.wav'));
await both('story', st);
