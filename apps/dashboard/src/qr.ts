import { qrGeometry } from '@cryptocheckout/pay-page/qr';
import { svgElement } from './dom.js';

/**
 * The QR code of `data` as an SVG image named `label` for assistive technology. The modules come
 * from the pay page's own drawing (its browser-safe `./qr` export), so a code scanned from the
 * dashboard reads the same as on the pay page. Colours are presentation attributes: the page's
 * policy forbids style attributes.
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
