// `npm run lint` (and `npm test`, before the tests): typescript-eslint's recommended rules everywhere, Next's and
// React hooks' rules for the dashboard. The cache (node_modules/.cache/eslint) keeps a second run to the files
// that changed.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import nextPlugin from '@next/eslint-plugin-next';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/', '.next/', 'dist/', 'data/', 'coverage/', 'test-results/', 'playwright-report/', 'next-env.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // A leading underscore marks an argument or binding kept on purpose (a handler's unused request, a skipped
      // tuple element).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // Refusing NUL and other control characters is a rule of the API (server/http/control-characters.ts), so
    // patterns that match them are the point, not a slip.
    rules: { 'no-control-regex': 'off' },
  },
  {
    // Kysely's documented migration signature: a migration must not depend on today's schema types.
    files: ['server/db/migrations/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests read JSON answers and assert on their fields; the assertions, not a second copy of every answer's
    // type, are what checks their shape.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The browser benchmarks hand functions to page.evaluate: they run in Chromium.
    files: ['bench/dashboard.mjs', 'bench/browser.mjs', 'bench/pages.mjs'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['app/**/*.{ts,tsx}', 'components/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { '@next/next': nextPlugin, 'react-hooks': reactHooks },
    rules: {
      ...nextPlugin.configs.recommended.rules,
      ...nextPlugin.configs['core-web-vitals'].rules,
      ...reactHooks.configs.recommended.rules,
    },
  },
);
