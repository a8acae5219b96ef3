/** Building DOM without markup strings: data only ever reaches the page as text nodes or attributes. */

export type Child = Node | string | null | undefined | false;
export type Attributes = Readonly<Record<string, string | number | boolean | null | undefined>>;

/** Creates HTML elements of one document: `h('td', { class: 'num' }, '12.50')`. */
export type ElementBuilder = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes?: Attributes,
  ...children: Child[]
) => HTMLElementTagNameMap[K];

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * An element builder for `doc`. Attribute values are set with setAttribute (`true` sets an empty
 * attribute, `false`/null/undefined leave it out); string children become text nodes.
 */
export function elementBuilder(doc: Document): ElementBuilder {
  return (tag, attributes = {}, ...children) => {
    const element = doc.createElement(tag);
    setAttributes(element, attributes);
    append(element, children);
    return element;
  };
}

/** Creates an SVG element in `doc` with attributes and children, like elementBuilder. */
export function svgElement(
  doc: Document,
  tag: string,
  attributes: Attributes = {},
  ...children: Child[]
): SVGElement {
  const element = doc.createElementNS(SVG_NS, tag) as SVGElement;
  setAttributes(element, attributes);
  append(element, children);
  return element;
}

/** Replaces every child of `parent` with `children`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, children);
}

function setAttributes(element: Element, attributes: Attributes): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
}

function append(parent: Node, children: readonly Child[]): void {
  const doc = parent.ownerDocument ?? (parent as Document);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? doc.createTextNode(child) : child);
  }
}

/**
 * Runs `update`, which may replace the focused element, then gives focus back to the element with
 * the same `data-focus-key` and puts the window's scroll position back: live refreshes must not
 * pull the keyboard user or the reader away from where they were.
 */
export function keepFocusAndScroll(doc: Document, win: Window, update: () => void): void {
  const active = doc.activeElement;
  const key = active?.closest('[data-focus-key]')?.getAttribute('data-focus-key') ?? null;
  const scrollX = win.scrollX;
  const scrollY = win.scrollY;
  update();
  if (active?.isConnected && active !== doc.body && doc.activeElement !== active) {
    // Moved rather than replaced (an open form kept across a redraw): moving an element drops its focus.
    (active as HTMLElement).focus?.({ preventScroll: true });
  } else if (key !== null && active !== null && !active.isConnected) {
    focusByKey(doc, key);
  }
  if (win.scrollX !== scrollX || win.scrollY !== scrollY) win.scrollTo(scrollX, scrollY);
}

/** Focuses the element whose `data-focus-key` is `key`, without scrolling; false when none is found. */
export function focusByKey(doc: Document, key: string): boolean {
  for (const candidate of doc.querySelectorAll<HTMLElement>('[data-focus-key]')) {
    if (candidate.getAttribute('data-focus-key') === key) {
      candidate.focus({ preventScroll: true });
      return doc.activeElement === candidate;
    }
  }
  return false;
}
