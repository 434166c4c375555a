// The installable app's icons (apps/web/static/icons/*.png), drawn from favicon.svg's shapes and written as PNG with
// node:zlib alone: flat shapes need no rasteriser, and nothing is fetched at build or install time. The PNGs are
// committed; `node scripts/app-icons.mjs` draws them again after a change here, and scripts/app-icons.test.ts fails
// when the committed ones differ from what this draws.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

/** favicon.svg's colours: the accent and white. @type {readonly [number, number, number]} */
export const ACCENT = [0x4f, 0x46, 0xe5];
/** @type {readonly [number, number, number]} */
const GLYPH = [0xff, 0xff, 0xff];

// favicon.svg on its 32-unit grid: a rounded square (rx 7) and four bars with round caps, 3 units wide.
const GRID = 32;
const CORNER = 7;
const HALF_STROKE = 1.5;
/** @type {ReadonlyArray<readonly [x: number, top: number, bottom: number]>} */
const BARS = [
  [8, 12, 22],
  [13.3, 8, 22],
  [18.7, 15, 22],
  [24, 10, 22],
];
/** The bars' bounding box, caps included, and its centre (the glyph is centred on it, not on the square). */
export const GLYPH_BOX = { left: 8 - HALF_STROKE, right: 24 + HALF_STROKE, top: 8 - HALF_STROKE, bottom: 22 + HALF_STROKE };
const CENTRE_X = (GLYPH_BOX.left + GLYPH_BOX.right) / 2;
const CENTRE_Y = (GLYPH_BOX.top + GLYPH_BOX.bottom) / 2;

/** The maskable icon's safe zone: a circle of 40% of the icon's size around its centre (W3C Manifest, "maskable"). */
export const SAFE_ZONE_RADIUS = 0.4;

/**
 * @typedef {object} IconSpec
 * @property {string} file
 * @property {number} size
 * @property {boolean} fullBleed the background fills the square (maskable and Apple icons: the system cuts the shape)
 * @property {number} glyphWidth the glyph's width as a share of the icon's
 */

/** @type {readonly IconSpec[]} */
export const ICONS = [
  // As favicon.svg: the rounded square on transparent corners, the glyph where the SVG has it.
  { file: 'icon-192.png', size: 192, fullBleed: false, glyphWidth: (GLYPH_BOX.right - GLYPH_BOX.left) / GRID },
  { file: 'icon-512.png', size: 512, fullBleed: false, glyphWidth: (GLYPH_BOX.right - GLYPH_BOX.left) / GRID },
  // Android cuts a circle, squircle or square out of it: the glyph keeps well inside the 80% safe circle.
  { file: 'icon-maskable-512.png', size: 512, fullBleed: true, glyphWidth: 0.42 },
  // iOS's Home Screen rounds the corners itself and fills transparency with black, so the square is opaque.
  { file: 'apple-touch-icon.png', size: 180, fullBleed: true, glyphWidth: 0.56 },
];

/**
 * Distance from (px, py) to the vertical segment x, top..bottom.
 * @param {number} px @param {number} py @param {number} x @param {number} top @param {number} bottom
 */
function toBar(px, py, x, top, bottom) {
  const dy = py < top ? top - py : py > bottom ? py - bottom : 0;
  return Math.hypot(px - x, dy);
}

/** Whether (x, y), on the 32-unit grid, is inside the rounded square. @param {number} x @param {number} y */
function inRoundedSquare(x, y) {
  if (x < 0 || y < 0 || x > GRID || y > GRID) return false;
  const cx = Math.min(Math.max(x, CORNER), GRID - CORNER);
  const cy = Math.min(Math.max(y, CORNER), GRID - CORNER);
  return Math.hypot(x - cx, y - cy) <= CORNER;
}

/** 4x4 samples a pixel: enough anti-aliasing for flat shapes. */
const SAMPLES = 4;

/**
 * The icon's pixels, RGBA, row by row.
 * @param {IconSpec} spec
 * @returns {Uint8Array}
 */
export function drawIcon(spec) {
  const { size, fullBleed, glyphWidth } = spec;
  const pixels = new Uint8Array(size * size * 4);
  const square = size / GRID; // pixels per grid unit of the square
  const glyph = (glyphWidth * size) / (GLYPH_BOX.right - GLYPH_BOX.left); // pixels per grid unit of the glyph
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      let background = 0;
      let mark = 0;
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const px = col + (sx + 0.5) / SAMPLES;
          const py = row + (sy + 0.5) / SAMPLES;
          if (!(fullBleed || inRoundedSquare(px / square, py / square))) continue;
          background++;
          const gx = CENTRE_X + (px - size / 2) / glyph;
          const gy = CENTRE_Y + (py - size / 2) / glyph;
          if (BARS.some(([x, top, bottom]) => toBar(gx, gy, x, top, bottom) <= HALF_STROKE)) mark++;
        }
      }
      const at = (row * size + col) * 4;
      const share = background === 0 ? 0 : mark / background;
      ACCENT.forEach((accent, channel) => {
        pixels[at + channel] = Math.round(accent * (1 - share) + (GLYPH[channel] ?? 0) * share);
      });
      pixels[at + 3] = Math.round((255 * background) / (SAMPLES * SAMPLES));
    }
  }
  return pixels;
}

/** @param {string} type @param {Uint8Array} data */
function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(data, zlib.crc32(type)) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A PNG (8-bit RGBA, no filter, deflated at level 9) of `pixels`.
 * @param {number} size
 * @param {Uint8Array} pixels
 */
export function encodePng(size, pixels) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type 6 (RGBA), deflate, adaptive filtering, no interlace
  const stride = size * 4;
  const raw = Buffer.alloc((stride + 1) * size);
  for (let row = 0; row < size; row++) raw.set(pixels.subarray(row * stride, (row + 1) * stride), row * (stride + 1) + 1);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

export const iconDir = fileURLToPath(new URL('../apps/web/static/icons/', import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(iconDir, { recursive: true });
  for (const spec of ICONS) {
    writeFileSync(join(iconDir, spec.file), encodePng(spec.size, drawIcon(spec)));
    console.log(`wrote apps/web/static/icons/${spec.file}`);
  }
}
