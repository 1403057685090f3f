// Builds the dashboard into dist/: the ES modules and the stylesheet of src/
// are copied under names carrying a hash of their content (so a browser never
// runs a stale copy after an upgrade), and index.html is rewritten to name
// them. No bundler: the app is a few plain ES modules.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, 'assets'), { recursive: true });

const names = readdirSync(src).filter((n) => ['.js', '.css'].includes(extname(n))).sort();
// One hash of every source file: a module's imports are renamed too, so a
// change anywhere must rename every module.
const all = createHash('sha256');
for (const n of readdirSync(src).sort()) all.update(n).update('\0').update(readFileSync(join(src, n)));
const h = all.digest('hex').slice(0, 10);
const hashed = new Map(names.map((n) => [n, `${n.slice(0, -extname(n).length)}.${h}${extname(n)}`]));
// Module imports between files ('./format.js') are rewritten to the hashed names.
const rename = (text) =>
  text.replace(/(['"])\.\/([\w-]+\.(?:js|css))\1/g, (m, q, n) => (hashed.has(n) ? `${q}./${hashed.get(n)}${q}` : m));
for (const n of names) {
  let text = readFileSync(join(src, n), 'utf8');
  if (n.endsWith('.js')) text = rename(text);
  writeFileSync(join(dist, 'assets', hashed.get(n)), text);
}
let html = readFileSync(join(src, 'index.html'), 'utf8');
html = html.replace(/(["'])\.\/([\w-]+\.(?:js|css))\1/g, (m, q, n) => {
  if (!hashed.has(n)) throw new Error(`index.html names ${n}, which src/ lacks`);
  return `${q}./assets/${hashed.get(n)}${q}`;
});
writeFileSync(join(dist, 'index.html'), html);
console.log(`built ${names.length + 1} files into ${dist}`);
