/**
 * Small valid files of common binary media types: what a response of that type carries when the
 * spec gives no example. A client that decodes the image gets a 1x1 picture, not an error.
 */
const base64Files: Record<string, string> = {
  'image/png': 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR4nGNgAAIAAAUAAXpeqz8AAAAASUVORK5CYII=',
  'image/gif': 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==',
  'image/jpeg':
    '/9j/4AAQSkZJRgABAQEAYABgAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAALCAABAAEBAREA/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/9oACAEBAAA/APn+iiigD//Z',
  'image/webp': 'UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==',
  'application/zip': 'UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==',
  'application/gzip': 'H4sIAAAAAAAAAwMAAAAAAAAAAAA=',
};

/** `image/*` and the other image types the table has no file for are served a PNG. */
const aliases: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'application/x-gzip': 'application/gzip',
  'application/x-zip-compressed': 'application/zip',
};

/**
 * A small valid file of a media type (lower case, no parameters): the type it is served as (the
 * declared name, aliases included; an `image/*` range gets a PNG) and its bytes. Types with no file of their own get eight zero bytes
 * under their own name (`application/octet-stream` is any bytes).
 *
 * @example placeholderFile('image/png').bytes.length // 68
 */
export function placeholderFile(essence: string): { type: string; bytes: Uint8Array } {
  const name = aliases[essence] ?? essence;
  const known = base64Files[name];
  // An alias keeps the name the document declares (`image/jpg`): a client compares it with what it asked for.
  if (known !== undefined) return { type: essence, bytes: fromBase64(known) };
  if (name === 'application/pdf') return { type: name, bytes: new TextEncoder().encode(minimalPdf()) };
  if (name.startsWith('image/')) return { type: 'image/png', bytes: fromBase64(base64Files['image/png']!) };
  return { type: essence.includes('*') ? 'application/octet-stream' : essence, bytes: new Uint8Array(8) };
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

/** A one-page PDF with a correct cross-reference table. */
function minimalPdf(): string {
  const objects = [
    '<</Type/Catalog/Pages 2 0 R>>',
    '<</Type/Pages/Kids[3 0 R]/Count 1>>',
    '<</Type/Page/Parent 2 0 R/MediaBox[0 0 72 72]>>',
  ];
  let text = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(text.length);
    text += `${index + 1} 0 obj${object}endobj\n`;
  });
  const xref = text.length;
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  return `${text}trailer<</Size ${objects.length + 1}/Root 1 0 R>>\nstartxref\n${xref}\n%%EOF\n`;
}
