// Building DOM without innerHTML: every text a profile or trace supplies goes in as text.

type Attributes = Record<string, string | number | boolean | undefined>;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Node | string | undefined)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  for (const child of children) if (child !== undefined) element.append(child);
  return element;
}

/** A custom element (vscode-elements) by tag name. */
export function custom(tag: string, attributes: Attributes = {}, ...children: (Node | string | undefined)[]): HTMLElement {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  for (const child of children) if (child !== undefined) element.append(child);
  return element;
}

function setAttributes(element: HTMLElement, attributes: Attributes): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
}

/** A plain table: header cells, then rows of cells (strings or nodes). */
export function table(id: string, headers: string[], rows: (string | Node)[][], rowClass?: (index: number) => string | undefined): HTMLTableElement {
  const head = el('thead', {}, el('tr', {}, ...headers.map((h) => el('th', { scope: 'col' }, h))));
  const body = el('tbody');
  rows.forEach((cells, index) => {
    body.append(el('tr', { class: rowClass?.(index) }, ...cells.map((c) => el('td', {}, c))));
  });
  return el('table', { id, class: 'data' }, head, body);
}
