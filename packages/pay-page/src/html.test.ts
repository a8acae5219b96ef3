import { describe, expect, it } from 'vitest';
import { escapeHtml, html, jsonForScriptBlock, trusted } from './html.js';

describe('escapeHtml', () => {
  it('escapes every character that can open markup or leave an attribute', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;',
    );
  });
});

describe('html', () => {
  it('escapes interpolated values but keeps trusted markup and nested templates', () => {
    const name = '<b>bold</b>';
    const inner = html`<em>${name}</em>`;
    expect(html`<p title="${name}">${inner}${trusted('<br>')}${[name, 1]}</p>`.value).toBe(
      '<p title="&lt;b&gt;bold&lt;/b&gt;"><em>&lt;b&gt;bold&lt;/b&gt;</em><br>&lt;b&gt;bold&lt;/b&gt;1</p>',
    );
  });

  it('renders null, undefined and false as nothing but keeps 0', () => {
    expect(html`${null}${undefined}${false}${0}`.value).toBe('0');
  });
});

describe('jsonForScriptBlock', () => {
  it('cannot close the script block or open a comment, and round-trips', () => {
    const data = { text: '</script><!-- <script>alert(1)</script> & \u2028' };
    const json = jsonForScriptBlock(data);
    expect(json).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(json)).toEqual(data);
  });
});
