import { inflateSync } from 'node:zlib';
import jsQRModule from 'jsqr';
import type { Locator } from 'playwright-core';

// jsqr is CommonJS typed as an ES module: from ESM its default import is the module object.
const jsQR = jsQRModule.default;

/** Decoded image: `data` holds width × height RGBA pixels, row by row. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Decodes the PNGs chromium writes for screenshots: 8 bits per channel, RGB or RGBA, not
 * interlaced. Anything else throws rather than being misread.
 */
export function decodePng(png: Buffer): RgbaImage {
  if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG file');
  let width = 0;
  let height = 0;
  let channels = 0;
  const compressed: Buffer[] = [];
  for (let offset = 8; offset < png.length; ) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    offset += 12 + length; // length, type, data, CRC
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const [bitDepth, colourType, , , interlace] = data.subarray(8, 13);
      channels = colourType === 6 ? 4 : colourType === 2 ? 3 : 0;
      if (bitDepth !== 8 || channels === 0 || interlace !== 0) {
        throw new Error(
          `unsupported PNG: bit depth ${bitDepth}, colour type ${colourType}, interlace ${interlace}`,
        );
      }
    } else if (type === 'IDAT') {
      compressed.push(data);
    } else if (type === 'IEND') {
      break;
    }
  }
  const raw = inflateSync(Buffer.concat(compressed));
  const stride = width * channels;
  if (raw.length !== height * (stride + 1)) throw new Error('PNG data does not match its header');
  const pixels = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const source = y * (stride + 1) + 1;
    const row = y * stride;
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? pixels[row + x - channels]! : 0;
      const up = y > 0 ? pixels[row - stride + x]! : 0;
      const upLeft = x >= channels && y > 0 ? pixels[row - stride + x - channels]! : 0;
      pixels[row + x] = (raw[source + x]! + unfilter(filter, left, up, upLeft)) & 0xff;
    }
  }
  const data = new Uint8ClampedArray(width * height * 4);
  for (let pixel = 0; pixel < width * height; pixel++) {
    for (let channel = 0; channel < 4; channel++) {
      data[pixel * 4 + channel] = channel < channels ? pixels[pixel * channels + channel]! : 255;
    }
  }
  return { width, height, data };
}

/** The predictor of PNG filter `filter` (0 none, 1 sub, 2 up, 3 average, 4 Paeth). */
function unfilter(filter: number, left: number, up: number, upLeft: number): number {
  switch (filter) {
    case 0:
      return 0;
    case 1:
      return left;
    case 2:
      return up;
    case 3:
      return (left + up) >> 1;
    case 4: {
      const estimate = left + up - upLeft;
      const toLeft = Math.abs(estimate - left);
      const toUp = Math.abs(estimate - up);
      const toUpLeft = Math.abs(estimate - upLeft);
      if (toLeft <= toUp && toLeft <= toUpLeft) return left;
      return toUp <= toUpLeft ? up : upLeft;
    }
    default:
      throw new Error(`unknown PNG filter ${filter}`);
  }
}

/**
 * Screenshots `element` as chromium paints it and decodes the QR code in it with jsQR, as a
 * wallet's camera would. Returns the decoded text, or null when the picture does not scan.
 */
export async function scanQrCode(element: Locator): Promise<string | null> {
  const image = decodePng(await element.screenshot({ animations: 'disabled', caret: 'hide' }));
  return jsQR(image.data, image.width, image.height, { inversionAttempts: 'dontInvert' })?.data ?? null;
}
