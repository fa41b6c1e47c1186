// The vscode-elements controls of the editor (issue 4): the tree's filter and search, the header's
// buttons. Imported by main.ts only after the first rows are on screen: their elements are in the
// page from the start (hidden, at their final size: styles.css) and upgrade once this runs, so
// defining them, their shadow roots and their first renders are no part of the first paint.
// (Imported dynamically, the module stays in the same bundle: esbuild makes it a lazy initialiser,
// so nothing is fetched and the exported page works the same.)
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
