// embed.mjs — makes a report: a copy of viewer/index.html with captures
// embedded, which opens straight to their pictures. It is the reference for
// the embedding contract of docs/VIEWER.md (`weir demo` does the same in C):
//
//   - the viewer holds exactly one marker element
//       <script id="weir-embedded-captures" type="application/json">[]</script>
//   - its `[]` is replaced by a JSON array of {"name": FILE NAME, "text": THE
//     WHOLE JSONL FILE} (a msgpack file goes as {"name", "base64"} instead);
//   - every `<` of that JSON is written \u003c, so neither `</script>` nor
//     `<!--` can appear inside the element (JSON allows \u003c anywhere in a
//     string, and `<` appears nowhere else in JSON).
//
// Usage: node embed.mjs VIEWER.html OUT.html CAPTURE... (exit 2 on misuse or
// when the viewer does not hold the marker exactly once).

import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';

export const MARKER = '<script id="weir-embedded-captures" type="application/json">[]</script>';

export function embed(html, captures) {
  const count = html.split(MARKER).length - 1;
  if (count !== 1) throw new Error(`the viewer must hold the marker element exactly once, it holds it ${count} times: ${MARKER}`);
  const json = JSON.stringify(captures).replace(/</g, '\\u003c');
  // split/join rather than String.replace: a replacement string would give
  // `$&`, `$'` ... inside the captures a meaning.
  const [head, tail] = html.split(MARKER);
  return head + MARKER.replace('[]', json) + tail;
}

export function captureEntry(path) {
  const bytes = readFileSync(path);
  const name = basename(path);
  let p = 0;
  while (p < bytes.length && (bytes[p] === 0x20 || bytes[p] === 0x0a || bytes[p] === 0x0d || bytes[p] === 0x09 || bytes[p] === 0xef || bytes[p] === 0xbb || bytes[p] === 0xbf)) p++;
  if (bytes[p] === 0x7b) return { name, text: bytes.toString('utf8') };
  return { name, base64: bytes.toString('base64') };
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) {
  const [viewer, out, ...files] = process.argv.slice(2);
  if (!viewer || !out || !files.length) {
    console.error('usage: node embed.mjs VIEWER.html OUT.html CAPTURE...');
    process.exit(2);
  }
  try {
    writeFileSync(out, embed(readFileSync(viewer, 'utf8'), files.map(captureEntry)));
  } catch (e) {
    console.error(`embed.mjs: ${e.message}`);
    process.exit(2);
  }
  console.log(`${out}: ${files.length} capture${files.length === 1 ? '' : 's'} embedded`);
}
