// Draws the app icon (build/icon.png, 512x512 RGBA): the shape of renderer/favicon.svg, a rounded square
// with four sound-level bars. Procedural, so the icon needs no drawing tool and no dependency:
// node scripts/make-icon.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const SIZE = 512;
const SCALE = SIZE / 64; // favicon.svg's viewBox is 64 units wide
const BG = [0x4f, 0x5b, 0xd5];
const FG = [0xff, 0xff, 0xff];
// favicon.svg, in its own units: the background, then the bars (x, y, width, height, corner radius).
const BACKGROUND = { x: 0, y: 0, w: 64, h: 64, r: 14 };
const BARS = [
  { x: 13, y: 26, w: 6, h: 12, r: 3 },
  { x: 23, y: 18, w: 6, h: 28, r: 3 },
  { x: 33, y: 12, w: 6, h: 40, r: 3 },
  { x: 43, y: 22, w: 6, h: 20, r: 3 },
];

/** Signed distance (pixels) from (px, py) to a rounded rectangle given in svg units; < 0 inside. */
function roundedRectDistance(px, py, rect) {
  const hw = (rect.w * SCALE) / 2;
  const hh = (rect.h * SCALE) / 2;
  const r = rect.r * SCALE;
  const dx = Math.abs(px - (rect.x * SCALE + hw)) - (hw - r);
  const dy = Math.abs(py - (rect.y * SCALE + hh)) - (hh - r);
  const outside = Math.hypot(Math.max(dx, 0), Math.max(dy, 0));
  return outside + Math.min(Math.max(dx, dy), 0) - r;
}

/** Fraction of the pixel centred on (px, py) that the shape covers: a one-pixel-wide edge ramp. */
function coverage(px, py, rect) {
  return Math.min(1, Math.max(0, 0.5 - roundedRectDistance(px, py, rect)));
}

function drawPixels() {
  const rgba = Buffer.alloc(SIZE * SIZE * 4);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const cx = x + 0.5;
      const cy = y + 0.5;
      const bg = coverage(cx, cy, BACKGROUND);
      let fg = 0;
      for (const bar of BARS) fg = Math.max(fg, coverage(cx, cy, bar));
      const i = (y * SIZE + x) * 4;
      // Bars lie well inside the background, so "white over blue" then the background's alpha is exact.
      for (let c = 0; c < 3; c++) rgba[i + c] = Math.round(BG[c] + (FG[c] - BG[c]) * fg);
      rgba[i + 3] = Math.round(255 * bg);
    }
  }
  return rgba;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 as PNG defines it (ISO 3309, the same polynomial as zip). */
function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

export function encodePng(rgba, width, height) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bits per channel
  ihdr[9] = 6; // colour type: RGBA
  // compression, filter method, interlace: all 0
  const stride = width * 4;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const out = y * (stride + 1);
    // Filter "Up" (2): rows of this icon repeat, so most of them become zeros and deflate to almost nothing.
    raw[out] = y === 0 ? 0 : 2;
    for (let i = 0; i < stride; i++) {
      const cur = rgba[y * stride + i];
      const up = y === 0 ? 0 : rgba[(y - 1) * stride + i];
      raw[out + 1 + i] = (cur - up) & 0xff;
    }
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'build', 'icon.png');
mkdirSync(path.dirname(out), { recursive: true });
const png = encodePng(drawPixels(), SIZE, SIZE);
writeFileSync(out, png);
console.log(`wrote ${path.relative(root, out)} (${SIZE}x${SIZE}, ${png.length} bytes)`);
