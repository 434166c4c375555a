import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ACCENT, ICONS, SAFE_ZONE_RADIUS, drawIcon, iconDir } from './app-icons.mjs';

/** Width, height, colour type and the RGBA pixels of a PNG as encodePng writes it (one IDAT, filter 0 on each row). */
function decode(png: Buffer) {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const idat = png.indexOf('IDAT');
  const raw = inflateSync(png.subarray(idat + 4, idat + 4 + png.readUInt32BE(idat - 4)));
  const pixels = new Uint8Array(width * height * 4);
  for (let row = 0; row < height; row++) pixels.set(raw.subarray(row * (width * 4 + 1) + 1, (row + 1) * (width * 4 + 1)), row * width * 4);
  return { width, height, colourType: png[25], pixels };
}

describe('the app icons', () => {
  it.each(ICONS)('$file is committed as the script draws it, $size px square', (spec) => {
    const { width, height, colourType, pixels } = decode(readFileSync(join(iconDir, spec.file)));
    expect([width, height, colourType]).toEqual([spec.size, spec.size, 6]);
    // Run `node scripts/app-icons.mjs` after changing the drawing.
    expect(Buffer.from(pixels).equals(Buffer.from(drawIcon(spec)))).toBe(true);
  });

  it('the maskable icon is opaque edge to edge, and its glyph stays inside the safe zone', () => {
    const spec = ICONS.find((icon) => icon.file === 'icon-maskable-512.png');
    if (!spec) throw new Error('no maskable icon');
    const { pixels } = decode(readFileSync(join(iconDir, spec.file)));
    const centre = spec.size / 2;
    let glyph = 0;
    let farthest = 0;
    for (let at = 0; at < pixels.length; at += 4) {
      expect(pixels[at + 3]).toBe(255);
      if (pixels[at] === ACCENT[0] && pixels[at + 1] === ACCENT[1] && pixels[at + 2] === ACCENT[2]) continue;
      glyph++;
      const col = (at / 4) % spec.size;
      const row = Math.floor(at / 4 / spec.size);
      farthest = Math.max(farthest, Math.hypot(col + 0.5 - centre, row + 0.5 - centre));
    }
    expect(glyph).toBeGreaterThan(spec.size * spec.size * 0.05);
    // A margin inside the 40% circle: launchers cut a circle of 80% of the size at the smallest.
    expect(farthest).toBeLessThan(SAFE_ZONE_RADIUS * spec.size * 0.8);
  });
});
