import { test } from 'node:test';
import assert from 'node:assert/strict';
import { machineInfo, machineLine, parseCpuDetail } from '../electron/bench/machine';

const ZEN5 = 'processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse2 avx fma avx2 avx512f avx512bw\n';
const ZEN2 = 'processor\t: 0\ncpu family\t: 23\nmodel\t\t: 49\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse2 avx fma avx2\n';
const A72 = 'processor\t: 0\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\nCPU implementer\t: 0x41\n';

test('the CPU detail tells two hosts both named "AMD EPYC" apart, and reads an ARM block', () => {
  assert.deepEqual(parseCpuDetail(ZEN5, 'x64'), { family: 26, model: 2, vector: 'avx512' });
  assert.deepEqual(parseCpuDetail(ZEN2, 'x64'), { family: 23, model: 49, vector: 'avx2' });
  assert.deepEqual(parseCpuDetail(A72, 'arm64'), { family: null, model: null, vector: 'neon' });
  assert.deepEqual(parseCpuDetail('', 'x64'), { family: null, model: null, vector: 'unknown' });
});

test('the machine line names the family and vector unit when /proc/cpuinfo has them', () => {
  const m = machineInfo({ backend: 'cpu', gpuDevices: [] });
  const line = machineLine(m);
  if (m.cpuDetail.family !== null) assert.match(line, new RegExp(`family ${m.cpuDetail.family} model \\d+, ${m.cpuDetail.vector}`));
  if (process.platform === 'linux' && process.arch === 'x64') assert.notEqual(m.cpuDetail.vector, 'unknown');
});
