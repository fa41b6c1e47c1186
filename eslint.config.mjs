// Layer rules are enforced here, not only described: src/core and src/cli run under plain
// Node and must never see `vscode`; the webview must never import host or core code
// (it talks to the host only through src/protocol).
import tseslint from 'typescript-eslint';

const noVscode = {
  name: 'vscode',
  message: 'src/core and src/cli run under plain Node: no vscode import, not even for types.',
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'out/**', '.vscode-test/**', 'dist-vsix/**', 'test-results/**', '**/*.mjs', '**/*.js'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['src/core/**/*.ts', 'src/cli/**/*.ts', 'src/protocol/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [noVscode],
        patterns: [{ group: ['**/extension/**', '**/extension', '**/webview/**'], message: 'core/cli/protocol must not depend on the extension host or the webview.' }],
      }],
    },
  },
  {
    files: ['webview/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'The webview runs in a browser frame: no vscode API.' }],
        patterns: [
          { group: ['**/src/extension/**', '**/src/core/**', '**/src/cli/**', 'node:*'], message: 'The webview talks to the host only through src/protocol.' },
        ],
      }],
    },
  },
);
