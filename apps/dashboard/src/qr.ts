import { encode } from 'uqr';
import { svgElement } from './dom.js';

// The QR specification asks for a 4-module light margin; scanners struggle with less.
const QUIET_ZONE = 4;

/**
 * The dark modules of the QR code of `data` as one SVG path on a `size`×`size` grid (quiet zone
 * included). Runs of dark modules on a row become one rectangle. Error correction M, as on the
 * pay page (packages/pay-page/src/qr.ts, which the page cannot bundle: that package carries
 * server code), so a code scanned from a phone screen reads the same.
 */
export function qrGeometry(data: string): { size: number; path: string } {
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
 * The QR code of `data` as an SVG image named `label` for assistive technology. Colours are
 * presentation attributes: the page's policy forbids style attributes.
 */
export function qrCodeSvg(doc: Document, data: string, label: string): SVGElement {
  const { size, path } = qrGeometry(data);
  return svgElement(
    doc,
    'svg',
    {
      class: 'qr',
      viewBox: `0 0 ${size} ${size}`,
      'shape-rendering': 'crispEdges',
      role: 'img',
      'aria-label': label,
    },
    svgElement(doc, 'rect', { width: size, height: size, fill: '#fff' }),
    svgElement(doc, 'path', { d: path, fill: '#000' }),
  );
}
