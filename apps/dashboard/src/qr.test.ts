import { qrGeometry as payPageQrGeometry } from '@cryptocheckout/pay-page';
import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import { qrCodeSvg, qrGeometry } from './qr.js';

const URI = 'ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=0xabc&uint256=1.5e6';

describe('qrGeometry', () => {
  it('draws the same code as the pay page for the same data', () => {
    expect(qrGeometry(URI)).toEqual(payPageQrGeometry(URI));
    expect(qrGeometry('a')).not.toEqual(qrGeometry('b'));
  });
});

describe('qrCodeSvg', () => {
  it('is a labelled SVG image of the whole grid, with colours as attributes', () => {
    const doc = new Window().document as unknown as Document;
    const svg = qrCodeSvg(doc, URI, 'QR code of the payment');
    const { size, path } = qrGeometry(URI);
    expect(svg.namespaceURI).toBe('http://www.w3.org/2000/svg');
    expect(svg.getAttribute('viewBox')).toBe(`0 0 ${size} ${size}`);
    expect(svg.getAttribute('role')).toBe('img');
    expect(svg.getAttribute('aria-label')).toBe('QR code of the payment');
    expect(svg.querySelector('path')?.getAttribute('d')).toBe(path);
    expect(svg.querySelector('rect')?.getAttribute('fill')).toBe('#fff');
    expect(svg.hasAttribute('style')).toBe(false);
  });
});
