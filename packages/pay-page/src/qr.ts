import { encode } from 'uqr';

/** A QR code as one SVG path on a square grid of `size` modules, quiet zone included. */
export interface QrGeometry {
  size: number;
  path: string;
}

// The QR specification asks for a 4-module light margin; scanners struggle with less.
const QUIET_ZONE = 4;

/**
 * Encodes `data` (a payment URI) as a QR code and returns its dark modules as a single path.
 * Runs of dark modules on a row become one rectangle, which keeps the markup a fraction of one
 * rectangle per module. Error correction level M survives a smudged phone screen.
 */
export function qrGeometry(data: string): QrGeometry {
  const qr = encode(data, { ecc: 'M', border: QUIET_ZONE });
  const commands: string[] = [];
  qr.data.forEach((row, y) => {
    let x = 0;
    while (x < qr.size) {
      if (!row[x]) {
        x += 1;
        continue;
      }
      const start = x;
      while (x < qr.size && row[x]) x += 1;
      commands.push(`M${start} ${y}h${x - start}v1h-${x - start}z`);
    }
  });
  return { size: qr.size, path: commands.join('') };
}

/**
 * The QR code of `data` as an inline SVG element. Colours are presentation attributes rather than
 * style attributes, which a strict style-src policy would block.
 */
export function qrSvg(data: string): string {
  const { size, path } = qrGeometry(data);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges" aria-hidden="true" focusable="false">` +
    `<rect width="${size}" height="${size}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`
  );
}
