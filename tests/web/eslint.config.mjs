// ESLint's recommended rules over the web viewer (browser globals), the JavaScript client package
// (clients/js: its modules run in browsers and Node alike, its Node entry, tests and examples in
// Node), the tests of the viewer's modules and
// the check of user-facing text in tests/docs (Node globals) and the browser tests (Node globals,
// and the browser's for the callbacks they hand to page.evaluate, which run in the page). Paths are from the repository's root: `npm run lint` and ctest's web.lint run
// ESLint there with this file as its config, because ESLint lints nothing outside the directory
// its configuration applies to (run from tests/web, it would skip clients/web and exit 0).

import js from '@eslint/js';
import globals from 'globals';

export default [
  // catalogue.js is herd-catalogue's output, one JSON document; its 2^64 - 1 (a seed's bound) is
  // more than a JS number holds, which its readers know (the JS tests compare it parsed).
  { ignores: ['**/node_modules/', 'clients/js/src/catalogue.js'] },
  {
    ...js.configs.recommended,
    name: 'herd/clients-web',
    files: ['clients/web/**/*.js'],
    // 2025: import attributes (theme.js imports palette.json as a JSON module).
    languageOptions: { ecmaVersion: 2025, sourceType: 'module', globals: globals.browser },
  },
  {
    ...js.configs.recommended,
    name: 'herd/clients-js',
    files: ['clients/js/src/**/*.js'],
    ignores: ['clients/js/src/node.js'],
    languageOptions: { ecmaVersion: 2025, sourceType: 'module', globals: globals.browser },
  },
  {
    ...js.configs.recommended,
    name: 'herd/clients-js-node',
    files: ['clients/js/src/node.js', 'clients/js/tests/**/*.mjs', 'clients/js/examples/**/*.mjs'],
    languageOptions: { ecmaVersion: 2025, sourceType: 'module', globals: globals.node },
  },
  {
    ...js.configs.recommended,
    name: 'herd/tests-web',
    files: ['tests/web/**/*.mjs'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: globals.node },
  },
  {
    ...js.configs.recommended,
    name: 'herd/tests-docs',
    files: ['tests/docs/**/*.mjs'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: globals.node },
  },
  {
    ...js.configs.recommended,
    name: 'herd/tests-e2e',
    files: ['tests/e2e/**/*.mjs'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node, ...globals.browser } },
  },
];
