#!/usr/bin/env node
// Draws the kernel logos (kernelspec/logo-32x32.png, logo-64x64.png): a blue
// tile with a white "TS" drawn from rectangles and a green bar standing for GPU
// memory in use. Run again after changing the design; the PNGs are committed.
const { deflateSync } = require("zlib");
const { writeFileSync } = require("fs");
const { join } = require("path");

function crc32(buf) {
  let c, crc = 0xffffffff;
  for (let n = 0; n < buf.length; n++) {
    c = (crc ^ buf[n]) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type), data]);
  const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

function png(size) {
  const px = (x, y) => {
    const u = x / size, v = y / size;
    const inRect = (x0, y0, x1, y1) => u >= x0 && u < x1 && v >= y0 && v < y1;
    if (inRect(0.12, 0.78, 0.88, 0.88)) return u < 0.62 ? [118, 185, 0, 255] : [60, 80, 110, 255];
    const T = inRect(0.12, 0.16, 0.48, 0.26) || inRect(0.25, 0.16, 0.35, 0.68);
    const S = inRect(0.54, 0.16, 0.88, 0.25) || inRect(0.54, 0.16, 0.63, 0.46) || inRect(0.54, 0.38, 0.88, 0.47) ||
      inRect(0.79, 0.38, 0.88, 0.68) || inRect(0.54, 0.59, 0.88, 0.68);
    if (T || S) return [255, 255, 255, 255];
    return [49, 120, 198, 255];
  };
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    for (let x = 0; x < size; x++) Buffer.from(px(x, y)).copy(raw, y * (size * 4 + 1) + 1 + x * 4);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0); ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; ihdr[9] = 6; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}

const dir = join(__dirname, "..", "kernelspec");
for (const size of [32, 64]) writeFileSync(join(dir, `logo-${size}x${size}.png`), png(size));
