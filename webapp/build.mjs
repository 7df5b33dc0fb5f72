// Bundles the UI (src/main/frontend) with esbuild into the directory given as the first argument
// (the Maven build passes target/classes/static), copying the HTML, the CSS, the API page and bpmn-js's and dmn-js's
// stylesheets beside it.
import { build } from 'esbuild';
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const out = process.argv[2] ?? 'target/classes/static';
mkdirSync(join(out, 'css'), { recursive: true });

await build({
  entryPoints: ['src/main/frontend/app.js'],
  bundle: true,
  minify: true,
  sourcemap: false,
  format: 'esm',
  target: 'es2020',
  outfile: join(out, 'app.js'),
  logLevel: 'warning',
});

cpSync('src/main/frontend/index.html', join(out, 'index.html'));
// the API page: plain HTML and a dependency-free module, copied as they are
cpSync('src/main/frontend/api.html', join(out, 'api.html'));
cpSync('src/main/frontend/api.js', join(out, 'api.js'));
cpSync('src/main/frontend/app.css', join(out, 'css', 'app.css'));
// the repair tools' styles (modification, migration, deletion, audit log), apart from the pages' own
cpSync('src/main/frontend/repair.css', join(out, 'css', 'repair.css'));
for (const sheet of ['diagram-js.css', 'bpmn-js.css']) {
  cpSync(join('node_modules/bpmn-js/dist/assets', sheet), join(out, 'css', sheet));
}
cpSync('node_modules/bpmn-js/dist/assets/bpmn-font', join(out, 'css', 'bpmn-font'), { recursive: true });
// dmn-js's, for the Decisions view's DRD (the DRD viewer shares diagram-js.css above)
for (const sheet of ['dmn-js-shared.css', 'dmn-js-drd.css']) {
  cpSync(join('node_modules/dmn-js/dist/assets', sheet), join(out, 'css', sheet));
}
cpSync('node_modules/dmn-js/dist/assets/dmn-font', join(out, 'css', 'dmn-font'), { recursive: true });
console.log('UI built into ' + out);
