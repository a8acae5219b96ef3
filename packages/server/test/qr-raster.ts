import jsQRModule from 'jsqr';

// jsqr is CommonJS typed as an ES module: from ESM its default import is the module object.
const jsQR = jsQRModule.default;

/** A QR code's modules as read from the page's SVG: `dark[y][x]`, quiet zone included. */
export interface QrModules {
  size: number;
  dark: boolean[][];
}

/**
 * Reads the modules of a QR code SVG as the pay page emits it (packages/pay-page/src/qr.ts): a
 * square `viewBox="0 0 N N"` and one path of `M<x> <y>h<w>v1h-<w>z` row runs. Anything else in the
 * path throws, so a renderer change cannot be silently misread.
 */
export function readQrSvg(svg: string): QrModules {
  const size = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)?.[1]);
  const path = /<path d="([^"]*)"/.exec(svg)?.[1];
  if (!Number.isInteger(size) || size <= 0 || path === undefined) throw new Error(`not a QR SVG: ${svg}`);
  const dark = Array.from({ length: size }, () => Array<boolean>(size).fill(false));
  const run = /M(\d+) (\d+)h(\d+)v1h-(\d+)z/y;
  while (run.lastIndex < path.length) {
    const start = run.lastIndex;
    const match = run.exec(path);
    if (!match) throw new Error(`unexpected QR path command at ${start}: ${path.slice(start, start + 40)}`);
    const [x, y, width, back] = match.slice(1).map(Number) as [number, number, number, number];
    if (width !== back || x + width > size || y >= size) throw new Error(`bad QR run ${match[0]}`);
    for (let column = x; column < x + width; column++) dark[y]![column] = true;
  }
  return { size, dark };
}

/**
 * Draws the modules `scale` pixels each as black on white RGBA and decodes them with jsQR, as a
 * phone camera would read the page. Returns the decoded text, or null if the code does not scan.
 */
export function decodeQrModules({ size, dark }: QrModules, scale = 4): string | null {
  const width = size * scale;
  const pixels = new Uint8ClampedArray(width * width * 4).fill(255);
  for (let y = 0; y < width; y++) {
    for (let x = 0; x < width; x++) {
      if (!dark[Math.floor(y / scale)]![Math.floor(x / scale)]) continue;
      const offset = (y * width + x) * 4;
      pixels[offset] = pixels[offset + 1] = pixels[offset + 2] = 0;
    }
  }
  return jsQR(pixels, width, width, { inversionAttempts: 'dontInvert' })?.data ?? null;
}

/** Dark modules within `margin` modules of the edge: a scanner needs that band light. */
export function darkModulesInMargin({ size, dark }: QrModules, margin: number): number {
  let count = 0;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const inMargin = x < margin || y < margin || x >= size - margin || y >= size - margin;
      if (inMargin && dark[y]![x]) count++;
    }
  }
  return count;
}
