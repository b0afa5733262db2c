/**
 * A value as XML text, for a response whose media type is XML and whose spec gives no example:
 * objects become elements named by their keys, array items repeat their parent's name, text is
 * escaped. Names that are not XML names are made into ones (`_`).
 *
 * @example xmlText({ id: 1, name: 'Rex & co' }, 'Pet') // an XML declaration, then <Pet><id>1</id><name>Rex &#38; co</name></Pet>
 * @example xmlText([{ id: 1 }, { id: 2 }], 'pets', 'pet') // <pets><pet><id>1</id></pet><pet><id>2</id></pet></pets>
 */
export function xmlText(value: unknown, rootName: string, itemName = 'item'): string {
  // A document has one root element: a list at the top is wrapped, its items named as the schema names them.
  const root = Array.isArray(value)
    ? `<${xmlName(rootName)}>${element(xmlName(itemName), value, 0)}</${xmlName(rootName)}>`
    : element(xmlName(rootName), value, 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${root}`;
}

function element(name: string, value: unknown, depth: number): string {
  if (value === null || value === undefined) return `<${name}/>`;
  if (Array.isArray(value)) return value.map((item) => element(name, item, depth + 1)).join('');
  if (typeof value === 'object') {
    if (depth > 32) return `<${name}/>`;
    const children = Object.entries(value).map(([key, child]) => element(xmlName(key), child, depth + 1));
    return `<${name}>${children.join('')}</${name}>`;
  }
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

function xmlName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

function escapeXml(text: string): string {
  return text
    .replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
}
