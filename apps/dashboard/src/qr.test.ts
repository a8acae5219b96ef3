import { qrSvg } from '@cryptocheckout/pay-page';
import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import { qrCodeSvg } from './qr.js';

const URI = 'ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=0xabc&uint256=1.5e6';

const newDocument = () => new Window().document as unknown as Document;

/** The grid size and module path of an SVG the pay page renders as markup. */
function payPageDrawing(data: string): { viewBox: string; path: string } {
  const svg = qrSvg(data);
  return {
    viewBox: /viewBox="([^"]+)"/.exec(svg)![1]!,
    path: /<path d="([^"]+)"/.exec(svg)![1]!,
  };
}

describe('qrCodeSvg', () => {
  it('draws the very code the pay page draws for the same payment URI', () => {
    const svg = qrCodeSvg(newDocument(), URI, 'QR code of the payment');
    const payPage = payPageDrawing(URI);
    expect(svg.getAttribute('viewBox')).toBe(payPage.viewBox);
    expect(svg.querySelector('path')?.getAttribute('d')).toBe(payPage.path);
    expect(svg.querySelector('rect')?.getAttribute('width')).toBe(payPage.viewBox.split(' ')[2]);
    // Other data, another code.
    const other = qrCodeSvg(newDocument(), `${URI}0`, 'QR code of the payment');
    expect(other.querySelector('path')?.getAttribute('d')).not.toBe(payPage.path);
  });

  it('is a labelled SVG image of the whole grid, with colours as attributes', () => {
    const svg = qrCodeSvg(newDocument(), URI, 'QR code of the payment');
    expect(svg.namespaceURI).toBe('http://www.w3.org/2000/svg');
    expect(svg.getAttribute('viewBox')).toMatch(/^0 0 (\d+) \1$/);
    expect(svg.getAttribute('role')).toBe('img');
    expect(svg.getAttribute('aria-label')).toBe('QR code of the payment');
    expect(svg.querySelector('rect')?.getAttribute('fill')).toBe('#fff');
    expect(svg.querySelector('path')?.getAttribute('fill')).toBe('#000');
    expect(svg.hasAttribute('style')).toBe(false);
  });
});
