// Writes cryptocheckout/logo.png: the 64x64 module icon PrestaShop shows in the module manager
// (a rounded square with a ring, drawn pixel by pixel so no image tool is needed).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const SIZE = 64;

function crc32(bytes) {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function chunk(type, data) {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** RGBA of one pixel. */
function pixel(x, y) {
  const c = (SIZE - 1) / 2;
  const corner = 12;
  const dx = Math.max(0, Math.abs(x - c) - (c - corner));
  const dy = Math.max(0, Math.abs(y - c) - (c - corner));
  if (dx * dx + dy * dy > corner * corner) return [0, 0, 0, 0];
  const r = Math.hypot(x - c, y - c);
  if (r > 14 && r < 22) return [255, 255, 255, 255];
  if (r <= 6) return [255, 255, 255, 255];
  return [65, 105, 225, 255];
}

export function makeLogo() {
  const raw = Buffer.alloc(SIZE * (SIZE * 4 + 1));
  for (let y = 0; y < SIZE; y++) {
    raw[y * (SIZE * 4 + 1)] = 0;
    for (let x = 0; x < SIZE; x++) {
      Buffer.from(pixel(x, y)).copy(raw, y * (SIZE * 4 + 1) + 1 + x * 4);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const target = fileURLToPath(new URL('../cryptocheckout/logo.png', import.meta.url));
  const png = makeLogo();
  writeFileSync(target, png);
  console.log(`logo.png: ${png.length} bytes`);
}
